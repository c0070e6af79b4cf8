package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
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
	runCtx, stop := context.WithCancel(ctx)
	ready := make(chan string, 1)
	var out, errOut syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- runBoard(&BoardOptions{IO: &IOStreams{Out: &out, ErrOut: &errOut}, WorkDir: ".", addr: "127.0.0.1:0",
			ctx: runCtx, ready: func(u string) { ready <- u }})
	}()
	var boardURL string
	select {
	case boardURL = <-ready:
	case err := <-done:
		t.Fatalf("board: %v\n%s", err, errOut.String())
	case <-ctx.Done():
		t.Fatal("the board did not start")
	}
	u, _ := url.Parse(boardURL)
	token := u.Query().Get("token")
	api := func(path string) string { return "http://" + u.Host + path + "?token=" + token }
	sessions := func() []overview.Session {
		t.Helper()
		resp, err := http.Get(api("/api/sessions"))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var ss []overview.Session
		if err := json.NewDecoder(resp.Body).Decode(&ss); err != nil {
			t.Fatal(err)
		}
		return ss
	}
	ss := sessions()
	if len(ss) != 1 || ss[0].ID != "pg-sess-1" || ss[0].State != "drafting" || ss[0].Harness != "codex" || len(ss[0].Timeline) == 0 {
		t.Fatalf("the board's sessions from the store: %+v", ss)
	}

	// A commit to the store reaches the board's event stream.
	req, _ := http.NewRequestWithContext(ctx, "GET", api("/api/events"), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	waitLine := func(prefix string) {
		t.Helper()
		for lines.Scan() {
			if strings.HasPrefix(lines.Text(), prefix) {
				return
			}
		}
		t.Fatalf("event stream ended before %q: %v", prefix, lines.Err())
	}
	waitLine("event: hello")
	var mainOut, mainErr bytes.Buffer
	if code := Main([]string{"hook-loop", "advance", "approval_requested"}, nil, &mainOut, &mainErr); code != 0 {
		t.Fatalf("advance: %d %s", code, mainErr.String())
	}
	waitLine("event: change")
	ss = sessions()
	if len(ss) != 1 || ss[0].State != "pending_approval" || !ss[0].Waiting {
		t.Fatalf("after the commit: %+v", ss)
	}

	// The approve button acts on the store.
	post, _ := http.NewRequest("POST", "http://"+u.Host+"/api/sessions/pg-sess-1/approve", nil)
	post.Header.Set("X-Board-Token", token)
	post.Header.Set("Origin", "http://"+u.Host)
	presp, err := http.DefaultClient.Do(post)
	if err != nil {
		t.Fatal(err)
	}
	presp.Body.Close()
	if presp.StatusCode != http.StatusNoContent {
		t.Fatalf("approve: %s", presp.Status)
	}
	if st := sessionState(t, s, "pg-sess-1"); st != "approved" {
		t.Fatalf("after the board's approve the store has the session in %q", st)
	}
	types := storeEvents(t, s, "pg-sess-1")
	if !strings.Contains(strings.Join(types, " "), eventlog.TypeOperatorApproved) {
		t.Fatalf("no %s in the store: %v", eventlog.TypeOperatorApproved, types)
	}
	stop()
	if err := <-done; err != nil {
		t.Fatalf("board: %v", err)
	}
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
