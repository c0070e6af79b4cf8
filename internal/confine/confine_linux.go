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
// It reads only /proc and imports nothing heavier than os, so the lean hook
// client links it without paying for it at start-up.
package confine

import (
	"os"
	"strconv"
	"strings"
	"syscall"
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
func Read(pid string) Of {
	b, err := readFile("/proc/" + pid + "/status")
	if err != nil {
		return Of{}
	}
	c := Of{OK: true}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, ":")
		switch k {
		case "NoNewPrivs":
			c.NoNewPrivs = strings.TrimSpace(v)
		case "Seccomp":
			c.Seccomp = strings.TrimSpace(v)
		case "TracerPid":
			c.TracerPid = strings.TrimSpace(v)
		}
	}
	for _, ns := range []struct {
		name string
		to   *string
	}{{"mnt", &c.Mnt}, {"user", &c.User}, {"pid", &c.PID}} {
		if *ns.to, err = os.Readlink("/proc/" + pid + "/ns/" + ns.name); err != nil {
			return Of{}
		}
	}
	return c
}

// readFile is os.ReadFile with plain system calls: os registers every file
// it opens with the runtime's poller, whose set-up (epoll, an eventfd) a
// hook client would pay for these reads alone.
func readFile(path string) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	b := make([]byte, 0, 4<<10)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := syscall.Read(fd, b[len(b):cap(b)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return b, nil
		}
		b = b[:len(b)+n]
	}
}

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
func Alike(peer, self Of) bool {
	return self.OK && peer.OK && peer.TracerPid == "0" &&
		peer.Mnt == self.Mnt && peer.User == self.User && peer.PID == self.PID &&
		peer.NoNewPrivs == self.NoNewPrivs && peer.Seccomp == self.Seccomp
}

// Pid is the decimal form /proc paths take.
func Pid(pid int32) string { return strconv.Itoa(int(pid)) }
