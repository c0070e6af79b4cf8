package overview

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	loopdsl "github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/session"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/gallery"
)

func approvalSpec(t *testing.T) *loopdsl.Spec {
	t.Helper()
	src, err := gallery.Get("approval_gate")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "hook-loop.json")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	spec, _, err := loopdsl.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

func add(t *testing.T, l *session.Log, events ...eventlog.Event) {
	t.Helper()
	err := l.Update(func(tx session.Tx) error {
		for _, e := range events {
			if _, err := tx.Append(e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func started(id, harness string) eventlog.Event {
	return eventlog.Event{SessionID: id, EventType: eventlog.TypeLoopStarted, State: "backlog",
		Payload: map[string]any{"initial_state": "backlog", "harness": harness, "loop_id": "approval_gate"}}
}

func moved(id, from, event, to string) eventlog.Event {
	return eventlog.Event{SessionID: id, EventType: eventlog.TypeStateTransitioned, State: to,
		Payload: map[string]any{"from": from, "event": event, "to": to}}
}

func refused(id string, n int) eventlog.Event {
	return eventlog.Event{SessionID: id, EventType: eventlog.TypeStopRefused, State: "drafting",
		Payload: map[string]any{"message": fmt.Sprintf("refusal %d", n), "stop_blocks": n}}
}

func TestOpenKeepsTheLatestEntriesAndFindsHarnesses(t *testing.T) {
	l := session.Open(filepath.Join(t.TempDir(), "events.jsonl"))
	add(t, l, started("a", "codex"), started("b", "pi"), moved("a", "backlog", "draft_ready", "drafting"))
	for i := 1; i <= 60; i++ {
		add(t, l, refused("a", i), eventlog.Event{SessionID: "a", EventType: eventlog.TypeHookFired, State: "drafting"})
	}
	add(t, l, moved("b", "backlog", "draft_ready", "drafting"), moved("b", "drafting", "approval_requested", "pending_approval"),
		eventlog.Event{SessionID: "b", EventType: "waiting_for_input", State: "pending_approval", Payload: map[string]any{"question": "Ship it?"}})

	// A small backward window and cap: a's start is out of reach, so its
	// harness comes from the forward search.
	w, err := Open(Options{Log: l, Spec: approvalSpec(t), TimelineCap: 5, BackscanBytes: 8192})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := w.Session("a")
	if a.Harness != "codex" || !a.Older || len(a.Timeline) != 5 {
		t.Fatalf("a: harness %q older %v timeline %d, want codex, true, 5", a.Harness, a.Older, len(a.Timeline))
	}
	if last := a.Timeline[4]; last.Kind != "stop_refused" || last.Detail != "refusal 60" {
		t.Errorf("a's newest entry %+v, want refusal 60", last)
	}
	if first := a.Timeline[0]; first.Detail != "refusal 56" {
		t.Errorf("a's oldest kept entry %+v, want refusal 56 (oldest first)", first)
	}
	if a.StopBlocks != 60 || a.State != "drafting" || a.Waiting || len(a.Next) != 1 || !strings.Contains(a.StopMessage, "approval_requested") {
		t.Errorf("a: %+v", a)
	}
	b, _ := w.Session("b")
	if !b.Waiting || b.Question != "Ship it?" || b.Harness != "pi" || b.StopMessage != "" {
		t.Errorf("b: waiting %v question %q harness %q stop message %q", b.Waiting, b.Question, b.Harness, b.StopMessage)
	}
	if got := w.Sessions(); got[0].ID != "b" {
		t.Errorf("the waiting session should come first, got %s", got[0].ID)
	}

	// Appended afterwards: folded in by Poll, the cap kept.
	add(t, l, eventlog.Event{SessionID: "b", EventType: OperatorPaused, Actor: "person", State: "pending_approval", Payload: map[string]any{"reason": "lunch"}},
		moved("b", "pending_approval", "approval_granted", "approved"))
	if changed, err := w.Poll(); err != nil || !changed {
		t.Fatalf("Poll: %v %v", changed, err)
	}
	b, _ = w.Session("b")
	if b.State != "approved" || b.Waiting || !b.Paused {
		t.Errorf("after poll b: state %s waiting %v paused %v", b.State, b.Waiting, b.Paused)
	}
	if got := b.Timeline[len(b.Timeline)-2].Text; got != "paused by person: lunch" {
		t.Errorf("operator entry %q", got)
	}
	if changed, _ := w.Poll(); changed {
		t.Error("Poll with nothing new reported a change")
	}
}

func TestOpenWholeLogWhenSmall(t *testing.T) {
	l := session.Open(filepath.Join(t.TempDir(), "events.jsonl"))
	add(t, l, started("a", "claude"), moved("a", "backlog", "draft_ready", "drafting"),
		eventlog.Event{SessionID: "a", EventType: eventlog.TypeHookFired, State: "drafting"},
		eventlog.Event{SessionID: "a", EventType: "release_checked", Actor: "lifecycle", State: "drafting", Payload: map[string]any{"decision": "hold the release"}})
	w, err := Open(Options{Log: l, Spec: approvalSpec(t)})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := w.Session("a")
	if a.Older || len(a.Timeline) != 3 || a.Timeline[0].Type != eventlog.TypeLoopStarted {
		t.Fatalf("timeline %+v older %v, want the three shown events and nothing older", a.Timeline, a.Older)
	}
	if e := a.Timeline[2]; e.Kind != "lifecycle" || e.Text != "release_checked: hold the release" {
		t.Errorf("lifecycle record shown as %+v", e)
	}
}

func TestReplacedLogIsReadAgain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	l := session.Open(path)
	add(t, l, started("old", "codex"))
	w, err := Open(Options{Log: l, Spec: approvalSpec(t)})
	if err != nil {
		t.Fatal(err)
	}
	os.Rename(path, path+".1")
	os.Remove(l.IndexPath())
	add(t, l, started("new", "pi"))
	if _, err := w.Poll(); err != nil {
		t.Fatal(err)
	}
	got := w.Sessions()
	if len(got) != 1 || got[0].ID != "new" || got[0].Harness != "pi" {
		t.Errorf("after the log was replaced: %+v", got)
	}
}

func TestReadBackwardsLinesAcrossChunks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	var want []string
	var b strings.Builder
	for i := range 5000 {
		s := fmt.Sprintf("line-%d-%s", i, strings.Repeat("x", i%700))
		want = append(want, s)
		b.WriteString(s + "\n")
	}
	os.WriteFile(path, []byte(b.String()), 0o644)
	var got []string
	if _, err := readBackwards(path, int64(b.Len()), 1<<40, func(l []byte) bool { got = append(got, string(l)); return true }); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[len(want)-1-i] {
			t.Fatalf("line %d from the end: %q, want %q", i, got[i], want[len(want)-1-i])
		}
	}
}
