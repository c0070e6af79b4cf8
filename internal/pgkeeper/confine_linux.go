package pgkeeper

import (
	"net"
	"strconv"
	"sync"
	"syscall"

	"github.com/hook-loop/hook-loop/internal/confine"
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
		cred, cerr = confine.PeerCred(int(fd))
	}); err != nil {
		return nil, err
	}
	return cred, cerr
}

type confinement = confine.Of

func confinementOf(pid string) confinement { return confine.Read(pid) }

// selfConfinement is the keeper's own, read once (again while it cannot be
// read): only a process itself sets its no_new_privs or seccomp mode or
// enters other namespaces, and the keeper does none of it.
func selfConfinement() confinement {
	selfOnce.Lock()
	defer selfOnce.Unlock()
	if !selfCached.OK {
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
	return confine.MoreConfined(peer, self)
}
