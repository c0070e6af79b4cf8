package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/gallery"
)

func TestStatusWatchPlainOutput(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "hook-loop.json")
	src, err := gallery.Get("approval_gate")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, src, 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "events.jsonl")
	appendEvent(t, path, eventlog.Event{SessionID: "watch-0001", EventType: eventlog.TypeLoopStarted, State: "backlog",
		Payload: map[string]any{"initial_state": "backlog", "harness": "claude"}})
	appendEvent(t, path, eventlog.Event{SessionID: "watch-0002", EventType: eventlog.TypeLoopStarted, State: "backlog",
		Payload: map[string]any{"initial_state": "backlog", "harness": "codex"}})

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	out, errOut := &syncBuffer{}, &syncBuffer{}
	opts := &StatusOptions{IO: &IOStreams{Out: out, ErrOut: errOut}, projectLog: projectLog{eventLog: path, config: cfg}, watch: true, ctx: runCtx}
	done := make(chan error, 1)
	go func() { done <- runStatus(opts) }()

	waitFor(t, ctx, out, "session watch-0002 (codex)  backlog")
	waitFor(t, ctx, out, "next:       draft_ready → drafting on a prompt from the person")
	first := out.String()

	appendEvent(t, path, eventlog.Event{SessionID: "watch-0001", EventType: eventlog.TypeStateTransitioned, State: "pending_approval",
		Payload: map[string]any{"from": "drafting", "event": "approval_requested", "to": "pending_approval"}})
	waitFor(t, ctx, out, "session watch-0001 (claude)  pending_approval  — WAITING FOR YOU")
	waitFor(t, ctx, out, `asks:       Waiting for the person: reply "approved"`)
	stop()
	if err := <-done; err != nil {
		t.Fatalf("status --watch after cancel: %v", err)
	}

	// Not a terminal: no screen control, earlier output kept, only the session
	// that changed printed again.
	all := out.String()
	if !strings.HasPrefix(all, first) || strings.Contains(all, "\x1b[") {
		t.Errorf("output is not append-only plain text:\n%q", all)
	}
	later := all[len(first):]
	if strings.Contains(later, "watch-0002") || !strings.HasPrefix(later, "--- ") {
		t.Errorf("the redraw should show only the changed session under a time line:\n%s", later)
	}
}

func TestWatchHeaderCountsInWords(t *testing.T) {
	now := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	for n, want := range map[int]string{0: "· 0 sessions ·", 1: "· 1 session ·", 2: "· 2 sessions ·"} {
		if got := watchHeader(n, now); !strings.Contains(got, want) {
			t.Errorf("watchHeader(%d) = %q, want %q", n, got, want)
		}
	}
}
