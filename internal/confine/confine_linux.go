// Package confine tells whether two processes of one user are sandboxed
// alike. hook-loop's helper processes (the PostgreSQL connection keeper, the
// hook server) run outside any sandbox, started by a hook the harness ran; a
// harness's sandbox (Codex's seccomp + Landlock, which sets no_new_privs;
// Claude Code's bubblewrap, which enters other namespaces) confines the
// agent's commands. A helper must serve no process more confined than itself
// — that would hand the sandboxed agent what its sandbox keeps from it — and a
// hook must trust no helper confined otherwise than itself, or traced: such a
// process was started, or is steered, by someone else than a hook.
//
// It reads only /proc and prctl with plain system calls, and imports nothing
// heavier than syscall, so the lean hook client links it without paying for
// it at start-up (os would register each file it opens with the runtime's
// poller, whose set-up a hook client would pay for these reads alone).
package confine

import (
	"bytes"
	"strconv"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Of is what /proc says of a process's confinement. OK is false when it
// cannot be read.
type Of struct {
	NoNewPrivs, Seccomp string
	TracerPid           string
	Mnt, User, PID      string
	OK                  bool
}

// Read is the confinement of pid ("self" for this process).
//
// Its files are read through one descriptor of the process's /proc
// directory: the path is looked up once, not four times, and every read is
// of the process that directory was opened for — a pid that ends and is
// reused meanwhile fails the later reads (ESRCH) instead of describing
// another process.
func Read(pid string) Of {
	dir, err := openat(unix.AT_FDCWD, "/proc/"+pid, unix.O_PATH|unix.O_DIRECTORY)
	if err != nil {
		return Of{}
	}
	defer closeFD(dir)
	c, ok := status(dir)
	if !ok {
		return Of{}
	}
	return c.withNamespaces(dir)
}

// Self is this process's confinement as Read("self") gives it, with
// no_new_privs and the seccomp mode from prctl instead of the status file,
// which the kernel writes out whole (memory, signals, CPUs) for each read:
// a hook client reads its own at every event.
func Self() Of {
	nnp, err := unix.PrctlRetInt(unix.PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0)
	if err != nil {
		return Of{}
	}
	mode, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0)
	if err != nil {
		return Of{}
	}
	// No tracer reads here: a process cannot tell its own from prctl, and
	// the checks of a peer never look at their own side's.
	c := Of{NoNewPrivs: strconv.Itoa(nnp), Seccomp: strconv.Itoa(mode), OK: true}
	dir, err := openat(unix.AT_FDCWD, "/proc/self", unix.O_PATH|unix.O_DIRECTORY)
	if err != nil {
		return Of{}
	}
	defer closeFD(dir)
	return c.withNamespaces(dir)
}

// status reads the fields of /proc/PID/status that Of holds, and stops
// reading once it has them (they come in its first kilobyte or two; the
// kernel writes the rest, CPU and memory lists, only if asked for it).
func status(dir int) (Of, bool) {
	fd, err := openat(dir, "status", unix.O_RDONLY)
	if err != nil {
		return Of{}, false
	}
	defer closeFD(fd)
	buf := make([]byte, 0, 4<<10)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := read(fd, buf[len(buf):cap(buf)])
		if err != nil || n <= 0 {
			return Of{}, false // the end, and a field missing
		}
		buf = buf[:len(buf)+n]
		if c, ok := statusFields(buf); ok {
			return c, true
		}
	}
}

// statusFields reads Of's fields from the whole lines of b.
func statusFields(b []byte) (Of, bool) {
	var c Of
	found := 0
	for line := range bytes.Lines(b) {
		k, v, whole := bytes.Cut(line, []byte{':'})
		if !whole || line[len(line)-1] != '\n' {
			continue
		}
		var to *string
		switch string(k) {
		case "NoNewPrivs":
			to = &c.NoNewPrivs
		case "Seccomp":
			to = &c.Seccomp
		case "TracerPid":
			to = &c.TracerPid
		default:
			continue
		}
		*to = string(bytes.TrimSpace(v))
		found++
	}
	c.OK = found == 3
	return c, c.OK
}

func (c Of) withNamespaces(dir int) Of {
	var buf [64]byte
	for _, ns := range []struct {
		name string
		to   *string
	}{{"ns/mnt", &c.Mnt}, {"ns/user", &c.User}, {"ns/pid", &c.PID}} {
		n, err := readlinkat(dir, ns.name, buf[:])
		if err != nil || n >= len(buf) {
			return Of{}
		}
		*ns.to = string(buf[:n])
	}
	return c
}

// The reads of /proc are raw system calls. They never block, and the
// runtime's bookkeeping for a call that might (entersyscall) let its
// monitor thread hand the hook server's only P to another thread whenever
// one of them took longer than its 20 µs tick — a cold /proc lookup of a
// new client often does — so that the hook went on on another thread, after
// a wake-up, every few events.

func openat(dir int, path string, flags int) (int, error) {
	p, err := syscall.BytePtrFromString(path)
	if err != nil {
		return -1, err
	}
	for {
		fd, _, e := syscall.RawSyscall6(syscall.SYS_OPENAT, uintptr(dir), uintptr(unsafe.Pointer(p)), uintptr(flags|unix.O_CLOEXEC), 0, 0, 0)
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return -1, e
		}
		return int(fd), nil
	}
}

func read(fd int, b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	for {
		n, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
		if e == syscall.EINTR {
			continue
		}
		if e != 0 {
			return 0, e
		}
		return int(n), nil
	}
}

func readlinkat(dir int, path string, b []byte) (int, error) {
	p, err := syscall.BytePtrFromString(path)
	if err != nil {
		return 0, err
	}
	n, _, e := syscall.RawSyscall6(syscall.SYS_READLINKAT, uintptr(dir), uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

func closeFD(fd int) { syscall.RawSyscall(syscall.SYS_CLOSE, uintptr(fd), 0, 0) }

// PeerCred is what the kernel says of the process at the other end of the
// unix socket fd (SO_PEERCRED): its pid, uid and gid when it connected.
func PeerCred(fd int) (*syscall.Ucred, error) {
	return syscall.GetsockoptUcred(fd, syscall.SOL_SOCKET, syscall.SO_PEERCRED)
}

// MoreConfined reports whether peer is sandboxed where self is not (or
// either cannot be read): the test a helper applies to whoever asks it.
func MoreConfined(peer, self Of) bool {
	if !self.OK || !peer.OK {
		return true
	}
	return peer.Mnt != self.Mnt || peer.User != self.User ||
		peer.NoNewPrivs != self.NoNewPrivs && peer.NoNewPrivs != "0" ||
		peer.Seccomp != self.Seccomp && peer.Seccomp != "0"
}

// Alike reports whether peer is confined exactly as self and traced by no
// one: the test a hook applies to a helper before trusting its answers.
func Alike(peer, self Of) bool { return Same(peer, self) && peer.TracerPid == "0" }

// Same reports whether peer is confined exactly as self: the test the hook
// server applies to a client. A server started inside the agent's sandbox
// then runs nothing for the hooks outside it (which send their event before
// they have checked the server), and the server outside runs nothing for
// the sandbox.
func Same(peer, self Of) bool {
	return self.OK && peer.OK &&
		peer.Mnt == self.Mnt && peer.User == self.User && peer.PID == self.PID &&
		peer.NoNewPrivs == self.NoNewPrivs && peer.Seccomp == self.Seccomp
}

// Pid is the decimal form /proc paths take.
func Pid(pid int32) string { return strconv.Itoa(int(pid)) }
