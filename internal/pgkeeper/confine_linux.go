package pgkeeper

import (
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// The keeper serves only peers no more confined than itself. A harness's
// sandbox (Codex's seccomp + Landlock, which sets no_new_privs; Claude Code's
// bubblewrap, which enters other namespaces) may keep the agent's commands
// off the network, and so off the database; the keeper runs outside it (a
// hook started it), and lending such a process an open, authenticated
// connection would hand the gated agent the database its sandbox kept it
// from — where it could write its own events. Hooks run where the harness
// runs, unconfined, like the keeper.

// peerCred is what the kernel says of the process at the other end of uc
// (SO_PEERCRED): its pid, uid and gid when it connected.
func peerCred(uc *net.UnixConn) (*syscall.Ucred, error) {
	raw, err := uc.SyscallConn()
	if err != nil {
		return nil, err
	}
	var cred *syscall.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return nil, err
	}
	return cred, cerr
}

// confinement is what /proc says of a process's sandboxing: its no_new_privs
// and seccomp fields and its mount and user namespaces. ok is false when it
// cannot be read.
type confinement struct {
	noNewPrivs, seccomp string
	mnt, user           string
	ok                  bool
}

func confinementOf(pid string) confinement {
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return confinement{}
	}
	c := confinement{ok: true}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, ":")
		switch k {
		case "NoNewPrivs":
			c.noNewPrivs = strings.TrimSpace(v)
		case "Seccomp":
			c.seccomp = strings.TrimSpace(v)
		}
	}
	if c.mnt, err = os.Readlink("/proc/" + pid + "/ns/mnt"); err != nil {
		return confinement{}
	}
	if c.user, err = os.Readlink("/proc/" + pid + "/ns/user"); err != nil {
		return confinement{}
	}
	return c
}

// selfConfinement is the keeper's own, read once (again while it cannot be
// read): only a process itself sets its no_new_privs or seccomp mode or
// enters other namespaces, and the keeper does none of it.
func selfConfinement() confinement {
	selfOnce.Lock()
	defer selfOnce.Unlock()
	if !selfCached.ok {
		selfCached = confinementOf("self")
	}
	return selfCached
}

var (
	selfOnce   sync.Mutex
	selfCached confinement
)

// moreConfined reports whether the peer at uc is sandboxed where the keeper
// is not (or cannot be told apart).
func moreConfined(uc *net.UnixConn) bool {
	cred, err := peerCred(uc)
	if err != nil || cred.Pid <= 0 {
		return true
	}
	pid := int(cred.Pid)
	self, peer := selfConfinement(), confinementOf(strconv.Itoa(pid))
	if !self.ok || !peer.ok {
		return true
	}
	return peer.mnt != self.mnt || peer.user != self.user ||
		peer.noNewPrivs != self.noNewPrivs && peer.noNewPrivs != "0" ||
		peer.seccomp != self.seccomp && peer.seccomp != "0"
}
