package eventlog

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// With WithIndexLater an Update returns once its event is in the log and
// hands on the rest: until finish, the lock is held (another writer waits)
// and the index does not cover the event; after it, the index is current
// and the Cache's fold is kept for the next Update.
func TestIndexLaterHoldsTheLockUntilFinish(t *testing.T) {
	needFileSig(t)
	path := filepath.Join(t.TempDir(), ".hook-loop", "events.jsonl")
	c := NewCache()
	cachedAppend(t, path, c, ev("s", TypeHookFired, "x", nil))
	var finish func()
	l := Open(path, testFolder{}, WithCache(c), WithIndexLater(func(f func()) { finish = f }))
	if err := l.Update(func(tx *Tx) error {
		_, err := tx.Append(ev("s", TypeHookFired, "x", map[string]any{"n": 2}))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if finish == nil {
		t.Fatal("the Update handed nothing on")
	}
	_ = l.Warnings() // this Log's calls do not wait for finish
	if n := strings.Count(readFileT(t, path), "\n"); n != 2 {
		t.Fatalf("the log has %d lines before finish, want 2: the event must be written first", n)
	}
	other := Open(path, testFolder{}, WithLockTimeout(100*time.Millisecond))
	var lt *LockTimeoutError
	if err := other.Update(func(tx *Tx) error { return nil }); !errors.As(err, &lt) {
		t.Fatalf("another writer before finish: %v, want a lock timeout", err)
	}
	st, _, err := readIndex(l.IndexPath(), testFolder{}, l.key, false)
	if err != nil || st == nil || st.hdr.Lines != 1 {
		t.Fatalf("the index before finish covers %+v (%v), want the first line only", st, err)
	}
	finish()
	finish() // a second call does nothing
	if err := other.Update(func(tx *Tx) error { return nil }); err != nil {
		t.Fatalf("another writer after finish: %v", err)
	}
	assertFresh(t, path)
	cachedAppend(t, path, c, ev("s", TypeHookFired, "x", nil))
	if s := c.Stats(path); s.Loaded != 1 {
		t.Errorf("stats %+v: the fold finish kept was not reused", s)
	}
}

// Views and failed Updates hand nothing on: they let go of the lock as
// always.
func TestIndexLaterOnlyForUpdatesThatWrote(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".hook-loop", "events.jsonl")
	appendAll(t, openTest(path), ev("s", TypeHookFired, "x", nil))
	handed := 0
	l := Open(path, testFolder{}, WithIndexLater(func(f func()) { handed++; f() }))
	if err := l.View(func(tx *Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := l.Update(func(tx *Tx) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("failed Update: %v", err)
	}
	if handed != 0 {
		t.Fatalf("%d hand-offs for a View and a failed Update", handed)
	}
	other := Open(path, testFolder{}, WithLockTimeout(100*time.Millisecond))
	if err := other.Update(func(tx *Tx) error { return nil }); err != nil {
		t.Fatalf("the lock was not let go: %v", err)
	}
}
