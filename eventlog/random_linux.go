//go:build linux

package eventlog

import (
	"crypto/rand"
	"unsafe"

	"golang.org/x/sys/unix"
)

// randomBytes fills b from the kernel's CSPRNG by the getrandom system call
// itself, which is what crypto/rand read before Go 1.24. crypto/rand (and
// unix.Getrandom) now go through the vDSO's getrandom, whose per-process
// state took a hook process 50 to 120 µs to set up for the 16 bytes of an
// event id; the system call takes about 1.5 µs. Where it is refused (an old
// kernel, a seccomp filter), crypto/rand reads instead.
func randomBytes(b []byte) {
	for len(b) > 0 {
		n, _, errno := unix.Syscall(unix.SYS_GETRANDOM, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), 0)
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 || int(n) <= 0 {
			_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
			return
		}
		b = b[n:]
	}
}
