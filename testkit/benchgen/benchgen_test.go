package benchgen

import (
	"path/filepath"
	"testing"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/loop/session"
)

// The generated log must be one hook-loop itself could have written: every line an
// event, every session's chain intact, and the index built so a hook's first run
// reads nothing but the index.
func TestWriteIsAValidLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	const n, sessions = 2003, 7
	if _, err := Write(path, Options{Events: n, Sessions: sessions, Focus: "focus"}); err != nil {
		t.Fatal(err)
	}
	l := session.Open(path)
	r, err := l.Verify()
	if err != nil {
		t.Fatal(err)
	}
	if !r.OK() || r.Events != n || r.Sessions != sessions || r.Skipped != 0 {
		t.Fatalf("verify: %+v", r)
	}
	var focus session.View
	var ids []string
	if err := l.View(func(tx session.Tx) error {
		focus = tx.Session("focus")
		ids = tx.SessionIDs()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if w := l.Warnings(); len(w) > 0 {
		t.Fatalf("index not usable after Write: %v", w)
	}
	if len(ids) != sessions || ids[0] != "focus" {
		t.Fatalf("sessions %v", ids)
	}
	if focus.State != "executing" || !focus.Started || focus.Events != (n+sessions-1)/sessions {
		t.Fatalf("focus summary %+v", focus)
	}
}

// TestBuildIndexIsNotBudgeted: the index of a generated log is built however
// long the fold takes. A hook's Update folds for half the lock timeout at most;
// BuildIndex used Update's budget, so a 1M-event bench log (several seconds to
// fold) got a partial index and the bench stopped.
func TestBuildIndexIsNotBudgeted(t *testing.T) {
	t.Setenv(eventlog.LockTimeoutEnv, "1ns") // a fold budget of half a nanosecond
	path := filepath.Join(t.TempDir(), "events.jsonl")
	if _, err := Write(path, Options{Events: 20_000, Sessions: 3, Focus: "focus"}); err != nil {
		t.Fatal(err)
	}
}
