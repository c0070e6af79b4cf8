package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/overview"
)

// With the store configured, the board shows the store's sessions, streams a
// change when a commit lands there (LISTEN/NOTIFY), and its buttons act on the
// store.
func TestBoardReadsAndActsOnTheStore(t *testing.T) {
	_, s := pgProject(t, "acme/board")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b := startBoard(t, ctx, &BoardOptions{WorkDir: "."})
	sessions := func() []overview.Session {
		t.Helper()
		var ss []overview.Session
		b.get(t, "/api/sessions", &ss)
		return ss
	}
	ss := sessions()
	if len(ss) != 1 || ss[0].ID != "pg-sess-1" || ss[0].State != "drafting" || ss[0].Harness != "codex" || len(ss[0].Timeline) == 0 {
		t.Fatalf("the board's sessions from the store: %+v", ss)
	}

	// A commit to the store reaches the board's event stream.
	waitLine := b.events(t, ctx)
	waitLine("event: hello")
	var mainOut, mainErr bytes.Buffer
	if code := Main([]string{"hook-loop", "advance", "approval_requested"}, nil, &mainOut, &mainErr); code != 0 {
		t.Fatalf("advance: %d %s", code, mainErr.String())
	}
	waitLine("event: change")
	// It now waits for a person: the page is nudged (a browser notification).
	waitLine("event: nudge")
	ss = sessions()
	if len(ss) != 1 || ss[0].State != "pending_approval" || !ss[0].Waiting {
		t.Fatalf("after the commit: %+v", ss)
	}

	// The approve button acts on the store.
	b.post(t, "/api/sessions/pg-sess-1/approve")
	if st := sessionState(t, s, "pg-sess-1"); st != "approved" {
		t.Fatalf("after the board's approve the store has the session in %q", st)
	}
	types := storeEvents(t, s, "pg-sess-1")
	if !strings.Contains(strings.Join(types, " "), eventlog.TypeOperatorApproved) {
		t.Fatalf("no %s in the store: %v", eventlog.TypeOperatorApproved, types)
	}
	b.stop()
}

// With the store configured, status --watch shows the store's sessions and
// redraws when a commit lands there.
func TestStatusWatchReadsTheStore(t *testing.T) {
	pgProject(t, "acme/watch")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	out, errOut := &syncBuffer{}, &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- runStatus(&StatusOptions{IO: &IOStreams{Out: out, ErrOut: errOut}, WorkDir: ".", watch: true, ctx: runCtx})
	}()
	waitFor(t, ctx, out, "session pg-sess-1 (codex)  drafting")
	var mainOut, mainErr bytes.Buffer
	if code := Main([]string{"hook-loop", "advance", "approval_requested"}, nil, &mainOut, &mainErr); code != 0 {
		t.Fatalf("advance: %d %s", code, mainErr.String())
	}
	waitFor(t, ctx, out, "session pg-sess-1 (codex)  pending_approval  — WAITING FOR YOU")
	stop()
	if err := <-done; err != nil {
		t.Fatalf("status --watch: %v\n%s", err, errOut.String())
	}
}
