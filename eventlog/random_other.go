//go:build !linux

package eventlog

import "crypto/rand"

// randomBytes fills b from crypto/rand (random_linux.go says why Linux
// does otherwise).
func randomBytes(b []byte) {
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
}
