package session

import (
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/hook-loop/hook-loop/eventlog"
)

func ev(session, typ, state string, payload map[string]any) eventlog.Event {
	return eventlog.Event{SessionID: session, RunID: "run-1", State: state, EventType: typ, Actor: "test", Payload: payload}
}

func appendAll(t *testing.T, l *Log, evs ...eventlog.Event) {
	t.Helper()
	if err := l.Update(func(tx Tx) error {
		for _, e := range evs {
			if _, err := tx.Append(e); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// refold folds the whole file again, from scratch, with whole payloads.
func refold(t *testing.T, path string) map[string]View {
	t.Helper()
	m := map[string]View{}
	err := eventlog.Open(path, nil).Scan(nil, func(_ int, e eventlog.Event) error {
		v := m[e.SessionID]
		v.Fold(&e)
		m[e.SessionID] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestRecoverySemantics(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".hook-loop", "events.jsonl")
	l := Open(path)
	appendAll(t, l, ev("s", eventlog.TypeSessionInitialized, "ignored", map[string]any{"initial_state": "planning"}))
	appendAll(t, l, ev("s", eventlog.TypeEvidenceRegistered, "planning", nil), ev("s", eventlog.TypeStopRefused, "planning", nil))
	appendAll(t, l, ev("s", eventlog.TypeStopRefused, "planning", nil), ev("other", eventlog.TypeSessionInitialized, "x", nil))
	err := l.Update(func(tx Tx) error {
		s := tx.Session("s")
		if s.State != "planning" || s.Evidence != 1 || s.StopBlocks != 2 || s.Events != 4 {
			t.Errorf("before transition: %+v", s)
		}
		if _, err := tx.Append(ev("s", eventlog.TypeStateTransitioned, "planning", map[string]any{"from": "planning", "event": "go", "to": "building"})); err != nil {
			return err
		}
		s = tx.Session("s")
		if s.State != "building" || s.StopBlocks != 0 || s.Transitions != 1 {
			t.Errorf("after transition: %+v", s)
		}
		if p := tx.Project(); p.Events != 6 || p.State != "building" {
			t.Errorf("project: %+v", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	appendAll(t, l, ev("s", eventlog.TypeLoopOutcome, "done", map[string]any{"outcome": "capped", "forced_by_harness": true}),
		ev("d", eventlog.TypeLoopStarted, "a", nil), ev("d", eventlog.TypeLoopDisarmed, "a", map[string]any{}))
	m := map[string]View{}
	var ids []string
	// A new Log reads the views from the index, as the next hook process does.
	if err := Open(path).View(func(tx Tx) error {
		ids = tx.SessionIDs()
		for _, id := range ids {
			m[id] = tx.Session(id)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if s := m["s"]; s.State != "done" || s.Outcome != "capped" || !s.OutcomeForced || s.Evidence != 1 || s.Events != 6 {
		t.Errorf("final: %+v", s)
	}
	if s := m["d"]; !s.Started || s.Disarmed != "disarmed" {
		t.Errorf("disarmed: %+v", s)
	}
	if !slices.Equal(ids, []string{"s", "other", "d"}) {
		t.Errorf("ids %v", ids)
	}
	if s := m["other"]; s.State != "x" || s.Events != 1 {
		t.Errorf("other: %+v", s)
	}
	// What the index kept equals a fold of the whole file with whole payloads:
	// the log's light parse decodes every key Fold reads.
	if want := refold(t, path); !reflect.DeepEqual(m, want) {
		t.Errorf("views differ from a full fold:\n got %+v\nwant %+v", m, want)
	}
}

// TestScoped: a project-scoped loop shares state and evidence; refused stops,
// the outcome and arming stay the session's. The engine and status both read it.
func TestScoped(t *testing.T) {
	l := Open(filepath.Join(t.TempDir(), "events.jsonl"))
	appendAll(t, l,
		ev("a", eventlog.TypeLoopStarted, "plan", nil),
		ev("a", eventlog.TypeEvidenceRegistered, "plan", nil),
		ev("a", eventlog.TypeStateTransitioned, "plan", map[string]any{"to": "build"}),
		ev("b", eventlog.TypeStopRefused, "build", nil))
	if err := l.View(func(tx Tx) error {
		own := Scoped(tx, "b", false)
		if own.State != "build" || own.Evidence != 0 || own.StopBlocks != 1 || own.Started {
			t.Errorf("session scope: %+v", own)
		}
		shared := Scoped(tx, "b", true)
		if shared.State != "build" || shared.Evidence != 1 || shared.StopBlocks != 1 || shared.Started {
			t.Errorf("project scope: %+v", shared)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

func TestFoldPersonControlsAndWouldBlocks(t *testing.T) {
	var v View
	for _, e := range []eventlog.Event{
		ev("s", eventlog.TypeOperatorPaused, "a", map[string]any{"reason": "lunch"}),
		ev("s", eventlog.TypeWouldBlock, "a", map[string]any{"kind": "tool", "reason": "risky"}),
		ev("s", eventlog.TypeWouldBlock, "a", map[string]any{"kind": "stop", "reason": "not done"}),
	} {
		v.Fold(&e)
	}
	if !v.Paused || v.PauseReason != "lunch" || v.WouldBlocks != 2 || v.LastWouldBlock != "not done" {
		t.Fatalf("after pause and would-blocks: %+v", v)
	}
	for _, e := range []eventlog.Event{
		ev("s", eventlog.TypeOperatorResumed, "a", nil),
		ev("s", eventlog.TypeOperatorCancelled, "a", nil),
		ev("s", eventlog.TypeLoopOutcome, "a", map[string]any{"outcome": "cancelled"}),
	} {
		v.Fold(&e)
	}
	if v.Paused || v.Cancelled != "cancelled" || v.Outcome != "cancelled" {
		t.Fatalf("after resume and cancel: %+v", v)
	}
	reset := ev("s", eventlog.TypeOperatorReset, "start", nil)
	v.Fold(&reset)
	if v.Cancelled != "" || v.Outcome != "" || v.State != "start" || v.WouldBlocks != 2 {
		t.Fatalf("after reset: %+v", v)
	}
}
