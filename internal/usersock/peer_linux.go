package usersock

import (
	"net"
	"os"
	"syscall"

	"github.com/hook-loop/hook-loop/internal/confine"
)

// PeerCred is what the kernel says of the process at the other end of uc
// (SO_PEERCRED): its pid, uid and gid when it connected.
func PeerCred(uc *net.UnixConn) (*syscall.Ucred, error) {
	raw, err := uc.SyscallConn()
	if err != nil {
		return nil, err
	}
	var cred *syscall.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) { cred, cerr = confine.PeerCred(int(fd)) }); err != nil {
		return nil, err
	}
	return cred, cerr
}

// Serves reports whether a helper confined as self serves the peer at uc:
// a process of this user whose confinement ok accepts (the connection
// keeper: no more confined than itself, !confine.MoreConfined; the hook
// server: exactly as confined, confine.Same). A sandboxed agent that
// reached the socket gets nothing from it.
func Serves(uc *net.UnixConn, self confine.Of, ok func(peer, self confine.Of) bool) bool {
	cred, err := PeerCred(uc)
	if err != nil || int(cred.Uid) != os.Getuid() || cred.Pid <= 0 {
		return false
	}
	return ok(confine.Read(confine.Pid(cred.Pid)), self)
}

// NoMoreConfined is the connection keeper's test of a peer.
func NoMoreConfined(peer, self confine.Of) bool { return !confine.MoreConfined(peer, self) }
