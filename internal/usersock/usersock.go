//go:build unix

// Package usersock is the lifetime of a per-user helper's unix socket, shared
// by the hook server (internal/hookd) and the PostgreSQL connection keeper
// (internal/pgkeeper): a socket in a directory only its user can enter, held
// by one process at a time through a lock file beside it, removed only while
// it is still that process's, and closed when the helper has been idle long
// enough or another process took the name.
package usersock

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// PrivateDir checks dir is a directory only this user can enter (creating it
// when create is set): a socket anyone could replace is not trusted.
func PrivateDir(dir string, create bool) error {
	if create {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != os.Getuid() || fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%s is not a directory private to this user", dir)
	}
	return nil
}

// Idle is how long a helper stays up without a request: the Go duration
// in the variable name (getenv), else def.
func Idle(getenv func(string) string, name string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(getenv(name)); err == nil && d > 0 {
		return d
	}
	return def
}

// ErrHeld is Listen's answer when another process holds the socket.
var ErrHeld = errors.New("usersock: another process holds the socket")

// Listener is a socket this process holds.
type Listener struct {
	*net.UnixListener
	path string
	lock *os.File
	self os.FileInfo
}

// Listen takes the socket at path (network "unix" or "unixpacket") for this
// process: its directory must be private, and its lock (path + ".lock", which
// then names this process's pid) free — ErrHeld when it is not. A socket left
// by a dead holder is replaced.
func Listen(network, path string) (*Listener, error) {
	if err := PrivateDir(filepath.Dir(path), false); err != nil {
		return nil, err
	}
	lock, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		return nil, ErrHeld
	}
	// The lock file names the holder, for whoever needs to stop it.
	if err := lock.Truncate(0); err == nil {
		_, _ = fmt.Fprintf(lock, "%d\n", os.Getpid())
	}
	_ = os.Remove(path) // a dead holder's
	ul, err := net.ListenUnix(network, &net.UnixAddr{Name: path, Net: network})
	if err != nil {
		lock.Close()
		return nil, err
	}
	ul.SetUnlinkOnClose(false) // removed by Close only while it is still ours
	l := &Listener{UnixListener: ul, path: path, lock: lock}
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return nil, err
	}
	if l.self, err = os.Stat(path); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

// Ours reports whether path is still the socket this process made (not
// removed, not replaced).
func (l *Listener) Ours() bool {
	fi, err := os.Stat(l.path)
	return err == nil && l.self != nil && os.SameFile(fi, l.self)
}

// Close stops listening, removes the socket if it is still ours and lets go
// of the lock.
func (l *Listener) Close() error {
	err := l.UnixListener.Close()
	if l.Ours() {
		_ = os.Remove(l.path)
	}
	l.lock.Close()
	return err
}

// CloseWhen closes the listener (which ends its Accept loop) once quiet
// reports true or the socket is no longer ours, looking every tick, until
// done is closed. Run it in a goroutine of its own.
func (l *Listener) CloseWhen(done <-chan struct{}, tick time.Duration, quiet func() bool) {
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		if quiet() || !l.Ours() {
			l.UnixListener.Close()
			return
		}
	}
}
