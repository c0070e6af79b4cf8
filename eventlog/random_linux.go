//go:build linux

package eventlog

import (
	"crypto/rand"

	"golang.org/x/sys/unix"
)

// randomBytes fills b from the kernel's CSPRNG by the getrandom system call,
// which is what crypto/rand read before Go 1.24. crypto/rand now goes
// through the vDSO's getrandom, whose per-process state cost a hook process
// 50 to 120 µs to set up for the 16 bytes of an event id (one system call:
// about 1 µs). Where the call is refused (an old kernel, a seccomp filter),
// crypto/rand reads instead.
func randomBytes(b []byte) {
	for len(b) > 0 {
		n, err := unix.Getrandom(b, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
			return
		}
		b = b[n:]
	}
}
