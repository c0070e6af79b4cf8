package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/loop/session"

	"github.com/hook-loop/hook-loop/eventlog"
)

// syncBuffer is a bytes.Buffer a command writes to while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func appendEvent(t *testing.T, path string, e eventlog.Event) {
	t.Helper()
	err := session.Open(path).Update(func(tx session.Tx) error { _, err := tx.Append(e); return err })
	if err != nil {
		t.Fatal(err)
	}
}

func waitFor(t *testing.T, ctx context.Context, out *syncBuffer, want string) {
	t.Helper()
	for !strings.Contains(out.String(), want) {
		select {
		case <-ctx.Done():
			t.Fatalf("%q never appeared; output:\n%s", want, out.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func TestLogFollow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	appendEvent(t, path, eventlog.Event{SessionID: "sess-one", EventType: eventlog.TypeSessionInitialized, State: "plan", Payload: map[string]any{"initial_state": "plan"}})

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	out, errOut := &syncBuffer{}, &syncBuffer{}
	opts := &LogOptions{IO: &IOStreams{Out: out, ErrOut: errOut}, eventLog: path, follow: true, types: "state_transitioned,session_initialized", ctx: runCtx}
	done := make(chan error, 1)
	go func() { done <- runLog(opts) }()

	waitFor(t, ctx, out, "session_initialized")
	appendEvent(t, path, eventlog.Event{SessionID: "sess-one", EventType: eventlog.TypeStateTransitioned, State: "build", Payload: map[string]any{"from": "plan", "to": "build", "event": "planned"}})
	appendEvent(t, path, eventlog.Event{SessionID: "sess-one", EventType: eventlog.TypeEvidenceRegistered, State: "build"})
	waitFor(t, ctx, out, "plan → build (planned)")

	// Rotated: the old log moves away and the next hook creates a new one.
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	os.Remove(path + ".idx")
	appendEvent(t, path, eventlog.Event{SessionID: "sess-two", EventType: eventlog.TypeSessionInitialized, State: "fresh", Payload: map[string]any{"initial_state": "fresh"}})
	waitFor(t, ctx, out, "sess-two")
	waitFor(t, ctx, errOut, "reading it from the start")

	stop()
	if err := <-done; err != nil {
		t.Fatalf("log --follow after cancel: %v", err)
	}
	if strings.Contains(out.String(), "evidence_registered") {
		t.Errorf("--type filter not applied while following:\n%s", out.String())
	}
	if n := strings.Count(out.String(), "plan → build"); n != 1 {
		t.Errorf("transition printed %d times, want once:\n%s", n, out.String())
	}
}

// A checkpoint line (the log's own bookkeeping, eventlog.IsCheckpoint) is not an
// event: `log --follow` passes over it without a warning.
func TestLogFollowSkipsCheckpoints(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	appendEvent(t, path, eventlog.Event{SessionID: "sess-one", EventType: eventlog.TypeSessionInitialized, State: "plan", Payload: map[string]any{"initial_state": "plan"}})
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"hook_loop_checkpoint":1,"header":{"offset":1},"sessions":[]}` + "\n")
	f.Close()
	appendEvent(t, path, eventlog.Event{SessionID: "sess-one", EventType: eventlog.TypeStateTransitioned, State: "build", Payload: map[string]any{"from": "plan", "to": "build", "event": "planned"}})

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	out, errOut := &syncBuffer{}, &syncBuffer{}
	opts := &LogOptions{IO: &IOStreams{Out: out, ErrOut: errOut}, eventLog: path, follow: true, ctx: runCtx}
	done := make(chan error, 1)
	go func() { done <- runLog(opts) }()
	waitFor(t, ctx, out, "plan → build (planned)")
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if strings.Contains(errOut.String(), "skipped") {
		t.Errorf("checkpoint reported as a bad line:\n%s", errOut.String())
	}
}
