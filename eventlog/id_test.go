package eventlog

import (
	"testing"

	"github.com/google/uuid"
)

// NewID's ids are version-4 UUIDs as a UUID library parses them, and differ.
func TestNewIDIsAVersion4UUID(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := NewID()
		u, err := uuid.Parse(id)
		if err != nil || u.Version() != 4 || u.Variant() != uuid.RFC4122 || u.String() != id {
			t.Fatalf("%q: %v version %v variant %v", id, err, u.Version(), u.Variant())
		}
		if seen[id] {
			t.Fatalf("%q twice", id)
		}
		seen[id] = true
	}
}

// TestRandomBytesFills: every byte is written, at any length (getrandom
// returns at most 32 MiB a call, and may return less when interrupted).
func TestRandomBytesFills(t *testing.T) {
	for _, n := range []int{0, 1, 16, 256, 257, 4096} {
		a, b := make([]byte, n), make([]byte, n)
		randomBytes(a)
		randomBytes(b)
		if n >= 16 && string(a) == string(b) {
			t.Fatalf("%d bytes: the same twice", n)
		}
		if n >= 256 {
			// Not one byte left zero in a row of 64: the tail was written.
			zeros := 0
			for _, c := range a[n-64:] {
				if c == 0 {
					zeros++
				}
			}
			if zeros == 64 {
				t.Fatalf("%d bytes: the tail is zero", n)
			}
		}
	}
}
