package pin

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readRegular reads a regular file whole, whatever its size, ends at the
// short read that finds the end, and reports a missing file as one (the
// engine tells a deleted loop file by fs.ErrNotExist).
func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{0, 1, 5457, 64 << 10, maxLoopFile} {
		p := filepath.Join(dir, "loop.json")
		want := bytes.Repeat([]byte("x"), n)
		if err := os.WriteFile(p, want, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := readRegular(p)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%d bytes: got %d bytes, %v", n, len(got), err)
		}
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, make([]byte, maxLoopFile+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readRegular(big); err == nil || !strings.Contains(err.Error(), "larger than 8 MiB") {
		t.Fatalf("a file over the cap: %v", err)
	}
	if _, err := readRegular(dir); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Fatalf("a directory: %v", err)
	}
	_, err := readRegular(filepath.Join(dir, "missing.json"))
	var pe *fs.PathError
	if !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) || pe.Op != "open" {
		t.Fatalf("a missing file: %v", err)
	}
}
