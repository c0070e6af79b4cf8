//go:build unix

package usersock

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func privateTemp(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "us")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func TestOneHolderAndItsSocketOnly(t *testing.T) {
	dir := privateTemp(t)
	path := filepath.Join(dir, "s.sock")
	l, err := Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Listen("unix", path); !errors.Is(err, ErrHeld) {
		t.Errorf("a second holder: %v, want ErrHeld", err)
	}
	if !l.Ours() {
		t.Error("the socket just made is not ours")
	}
	// Another process's socket at the name (removed, then replaced): not
	// ours, and Close leaves it alone.
	os.Remove(path)
	other, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if l.Ours() {
		t.Error("a replaced socket is still ours")
	}
	done := make(chan struct{})
	closed := make(chan struct{})
	go func() { l.CloseWhen(done, 5*time.Millisecond, func() bool { return false }); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("CloseWhen did not close a listener whose socket was replaced")
	}
	close(done)
	l.Close()
	if _, err := os.Stat(path); err != nil {
		t.Errorf("Close removed the other process's socket: %v", err)
	}
	// The lock is free again.
	other.Close()
	l2, err := Listen("unix", path)
	if err != nil {
		t.Fatalf("after Close: %v", err)
	}
	l2.Close()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("Close left its own socket: %v", err)
	}
}

func TestQuietClosesAndOpenDirsAreRefused(t *testing.T) {
	dir := privateTemp(t)
	l, err := Listen("unix", filepath.Join(dir, "s.sock"))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	defer close(done)
	go l.CloseWhen(done, 5*time.Millisecond, func() bool { return true })
	if _, err := l.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("accept after quiet: %v", err)
	}
	l.Close()
	open := privateTemp(t)
	os.Chmod(open, 0o755)
	if _, err := Listen("unix", filepath.Join(open, "s.sock")); err == nil {
		t.Error("a socket in a directory others can enter was made")
	}
}

func TestIdle(t *testing.T) {
	env := map[string]string{"A": "90s", "B": "soon", "C": "-1s"}
	getenv := func(k string) string { return env[k] }
	for name, want := range map[string]time.Duration{"A": 90 * time.Second, "B": time.Minute, "C": time.Minute, "D": time.Minute} {
		if got := Idle(getenv, name, time.Minute); got != want {
			t.Errorf("%s=%q: %v, want %v", name, env[name], got, want)
		}
	}
}
