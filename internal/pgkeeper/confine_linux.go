package pgkeeper

import (
	"net"
	"sync"

	"github.com/hook-loop/hook-loop/internal/confine"
	"github.com/hook-loop/hook-loop/internal/usersock"
)

// The keeper serves only peers no more confined than itself. A harness's
// sandbox (Codex's seccomp + Landlock, which sets no_new_privs; Claude Code's
// bubblewrap, which enters other namespaces) may keep the agent's commands
// off the network, and so off the database; the keeper runs outside it (a
// hook started it), and lending such a process an open, authenticated
// connection would hand the gated agent the database its sandbox kept it
// from — where it could write its own events. Hooks run where the harness
// runs, unconfined, like the keeper.

// peerCred is usersock.PeerCred.
var peerCred = usersock.PeerCred

// selfConfinement is the keeper's own, read once (again while it cannot be
// read): only a process itself sets its no_new_privs or seccomp mode or
// enters other namespaces, and the keeper does none of it.
func selfConfinement() confine.Of {
	selfOnce.Lock()
	defer selfOnce.Unlock()
	if !selfCached.OK {
		selfCached = confine.Read("self")
	}
	return selfCached
}

var (
	selfOnce   sync.Mutex
	selfCached confine.Of
)

// serves reports whether the keeper serves the peer at uc: a process of
// this user no more confined than the keeper (usersock.Serves).
func serves(uc *net.UnixConn) bool {
	return usersock.Serves(uc, selfConfinement(), usersock.NoMoreConfined)
}
