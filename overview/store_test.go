package overview

import (
	"context"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/eventlog/postgres"
	"github.com/hook-loop/hook-loop/loop/session"
	"github.com/hook-loop/hook-loop/testkit/pgtest"
)

// The overview of a project's log in PostgreSQL is the file's: the latest
// entries of each session within the cap, harnesses found beyond the
// backward window, and — with the interval reads off — a commit seen through
// the store's notification alone.
func TestOverviewOfTheStore(t *testing.T) {
	srv := pgtest.Start(t, pgtest.Options{})
	t.Setenv(eventlog.StateDirEnv, t.TempDir())
	s, err := postgres.Open[session.View](srv.URL(), postgres.Options{Project: "acme/overview"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	add := func(events ...eventlog.Event) {
		t.Helper()
		if err := s.Update(func(tx *postgres.Tx[session.View, *session.View]) error {
			for _, e := range events {
				if _, err := tx.Append(e); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	add(started("a", "codex"), started("b", "pi"), moved("a", "backlog", "draft_ready", "drafting"))
	for i := 1; i <= 60; i++ {
		add(refused("a", i), eventlog.Event{SessionID: "a", EventType: eventlog.TypeHookFired, State: "drafting"})
	}
	add(moved("b", "backlog", "draft_ready", "drafting"), moved("b", "drafting", "approval_requested", "pending_approval"),
		eventlog.Event{SessionID: "b", EventType: "waiting_for_input", State: "pending_approval", Payload: map[string]any{"question": "Ship it?"}})

	w, err := Open(Options{Store: s, Spec: approvalSpec(t), TimelineCap: 5, BackscanBytes: 8192, StorePoll: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := w.Session("a")
	if a.Harness != "codex" || !a.Older || len(a.Timeline) != 5 || a.StopBlocks != 60 || a.State != "drafting" {
		t.Fatalf("a: harness %q older %v timeline %d stop blocks %d state %s, want codex, true, 5, 60, drafting", a.Harness, a.Older, len(a.Timeline), a.StopBlocks, a.State)
	}
	if first, last := a.Timeline[0], a.Timeline[4]; first.Detail != "refusal 56" || last.Detail != "refusal 60" {
		t.Errorf("a's timeline runs %q … %q, want refusal 56 … refusal 60", first.Detail, last.Detail)
	}
	b, _ := w.Session("b")
	if !b.Waiting || b.Question != "Ship it?" || b.Harness != "pi" {
		t.Errorf("b: waiting %v question %q harness %q", b.Waiting, b.Question, b.Harness)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	changed := make(chan struct{}, 16)
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx, func() { changed <- struct{}{} }) }()
	// Run listens (on a connection of its own, set up in the background)
	// while it reads the log the first time; a commit before LISTEN would be
	// missed, so commit until changes are seen. Only the first read reports a
	// change without a notification, so a second change means LISTEN is up.
	deadline := time.After(20 * time.Second)
	for seen := 0; seen < 2; {
		add(eventlog.Event{SessionID: "b", EventType: OperatorPaused, Actor: "person", State: "pending_approval", Payload: map[string]any{"reason": "lunch"}})
		select {
		case <-changed:
			seen++
		case <-time.After(200 * time.Millisecond):
		case <-deadline:
			t.Fatal("no change seen through the store's notifications")
		}
	}
	add(moved("b", "pending_approval", "approval_granted", "approved"))
	// Its own deadline: on a loaded machine the first phase (the watcher's
	// LISTEN) can take most of the first one.
	deadline = time.After(20 * time.Second)
	for {
		select {
		case <-changed:
		case <-deadline:
			t.Fatal("the second commit was not seen")
		}
		if b, _ := w.Session("b"); b.State == "approved" {
			if !b.Paused || b.Waiting {
				t.Errorf("after the commits b: paused %v waiting %v", b.Paused, b.Waiting)
			}
			break
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
