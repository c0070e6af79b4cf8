//go:build unix

package eventlog

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestLockWaitIsBounded(t *testing.T) {
	flockBin, err := exec.LookPath("flock")
	if err != nil {
		t.Skip("flock(1) not installed (util-linux)")
	}
	l := executing(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// A process outside hook-loop holds the lock, as `flock … sleep` would.
	holder := exec.CommandContext(ctx, flockBin, l.LockPath(), "sh", "-c", "echo held; sleep 60")
	out, _ := holder.StdoutPipe()
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { holder.Process.Kill(); holder.Wait() }()
	buf := make([]byte, 5)
	if _, err := out.Read(buf); err != nil {
		t.Fatal(err)
	}
	l2 := Open(l.Path(), testFolder{}, WithLockTimeout(200*time.Millisecond))
	done := make(chan error, 1)
	go func() {
		done <- l2.Update(func(tx *Tx) error { _, err := tx.Append(ev("s1", TypeHookFired, "x", nil)); return err })
	}()
	select {
	case err := <-done:
		var lt *LockTimeoutError
		if !errors.Is(err, ErrLockTimeout) || !errors.As(err, &lt) || lt.Path != l.LockPath() || strings.Contains(err.Error(), "\n") {
			t.Fatalf("Update: %v, want a one-line ErrLockTimeout naming %s", err, l.LockPath())
		}
	case <-ctx.Done():
		t.Fatal("Update still waiting on the lock")
	}
	// A View reads without it, and says so.
	if err := l2.View(func(tx *Tx) error { return nil }); err != nil || !strings.Contains(strings.Join(l2.Warnings(), ""), "without the lock") {
		t.Fatalf("View: %v %q", err, l2.Warnings())
	}
}

func TestOnlyRegularFilesAreOpened(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	try := func(t *testing.T, l *Log, want string) {
		t.Helper()
		done := make(chan error, 2)
		go func() {
			done <- l.Update(func(tx *Tx) error { _, err := tx.Append(ev("s1", TypeHookFired, "x", nil)); return err })
			done <- l.View(func(tx *Tx) error { return nil })
		}()
		for range 2 {
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("got %v, want a one-line error with %q", err, want)
				}
			case <-ctx.Done():
				t.Fatal("hung")
			}
		}
	}
	t.Run("log symlinked to /dev/null", func(t *testing.T) {
		l := newLog(t)
		os.MkdirAll(filepath.Dir(l.Path()), 0o755)
		os.Symlink(os.DevNull, l.Path())
		try(t, l, "symbolic link")
	})
	t.Run("log symlinked to a file", func(t *testing.T) {
		l := newLog(t)
		os.MkdirAll(filepath.Dir(l.Path()), 0o755)
		target := filepath.Join(t.TempDir(), "elsewhere")
		os.WriteFile(target, nil, 0o644)
		os.Symlink(target, l.Path())
		try(t, l, "symbolic link")
		if b, _ := os.ReadFile(target); len(b) != 0 {
			t.Fatalf("wrote %d bytes through the link", len(b))
		}
	})
	t.Run("log is a FIFO", func(t *testing.T) {
		l := newLog(t)
		os.MkdirAll(filepath.Dir(l.Path()), 0o755)
		if err := syscall.Mkfifo(l.Path(), 0o644); err != nil {
			t.Skip(err)
		}
		try(t, l, "not a regular file")
	})
	t.Run("lock is a FIFO", func(t *testing.T) {
		l := newLog(t)
		os.MkdirAll(filepath.Dir(l.Path()), 0o755)
		if err := syscall.Mkfifo(l.LockPath(), 0o644); err != nil {
			t.Skip(err)
		}
		done := make(chan error, 1)
		go func() { done <- l.Update(func(tx *Tx) error { return nil }) }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Fatalf("got %v", err)
			}
		case <-ctx.Done():
			t.Fatal("hung")
		}
	})
	t.Run("index and its temporary file are FIFOs", func(t *testing.T) {
		l := executing(t)
		for _, p := range []string{l.IndexPath(), l.IndexPath() + ".tmp"} {
			os.Remove(p)
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skip(err)
			}
		}
		done := make(chan error, 1)
		go func() {
			done <- l.Update(func(tx *Tx) error { _, err := tx.Append(ev("s1", TypeHookFired, "x", nil)); return err })
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-ctx.Done():
			t.Fatal("hung")
		}
		// The index is rebuilt in a file of hook-loop's own.
		if fi, err := os.Lstat(l.IndexPath()); err != nil || !fi.Mode().IsRegular() {
			t.Fatalf("index: %v %v", fi, err)
		}
	})
	t.Run("key file is a FIFO", func(t *testing.T) {
		t.Setenv(StateDirEnv, t.TempDir())
		l := newLog(t)
		keyPath, err := KeyPath(l.Path())
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Dir(keyPath), 0o700)
		if err := syscall.Mkfifo(keyPath, 0o600); err != nil {
			t.Skip(err)
		}
		try(t, l, "not a regular file")
	})
	t.Run("log directory is a symlink", func(t *testing.T) {
		root := t.TempDir()
		real := filepath.Join(root, "real")
		os.Mkdir(real, 0o755)
		os.Symlink(real, filepath.Join(root, ".hook-loop"))
		l := openTest(filepath.Join(root, ".hook-loop", "events.jsonl"))
		try(t, l, "symbolic link")
		if ents, _ := os.ReadDir(real); len(ents) != 0 {
			t.Fatalf("wrote %d files through the link", len(ents))
		}
	})
	t.Run("index symlinked", func(t *testing.T) {
		l := executing(t)
		target := filepath.Join(t.TempDir(), "victim")
		os.WriteFile(target, []byte("keep"), 0o644)
		os.Remove(l.IndexPath())
		os.Symlink(target, l.IndexPath())
		os.Symlink(target, l.IndexPath()+".tmp")
		appendAll(t, l, ev("s1", TypeHookFired, "x", nil))
		if b, _ := os.ReadFile(target); string(b) != "keep" {
			t.Fatalf("victim now %q", b)
		}
		// The planted links are gone and the index is hook-loop's again.
		if fi, err := os.Lstat(l.IndexPath()); err != nil || !fi.Mode().IsRegular() {
			t.Fatalf("index: %v %v", fi, err)
		}
		viewAll(t, l)
		if w := l.Warnings(); len(w) != 0 {
			t.Fatalf("index not trusted after repair: %q", w)
		}
	})
}

// The same log reached through a linked parent directory has the same key.
func TestKeyPathSameThroughLinkedParent(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "real", ".hook-loop"), 0o755)
	os.Symlink(filepath.Join(root, "real"), filepath.Join(root, "link"))
	a, _ := KeyPath(filepath.Join(root, "real", ".hook-loop", "events.jsonl"))
	b, _ := KeyPath(filepath.Join(root, "link", ".hook-loop", "events.jsonl"))
	if a != b {
		t.Fatalf("%s != %s", a, b)
	}
}
