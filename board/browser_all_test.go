package board_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/hook-loop/hook-loop/board"
	hlcli "github.com/hook-loop/hook-loop/cli"
	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/fleet"
	"github.com/hook-loop/hook-loop/nudge"
	"github.com/hook-loop/hook-loop/overview"
	"github.com/hook-loop/hook-loop/testkit/pgtest"
)

// pgHook runs a Codex hook of the project at dir with its log in the store.
func pgHook(t *testing.T, store, dir, session, event, fields string) {
	t.Helper()
	cwd, _ := json.Marshal(dir)
	in := `{"session_id":"` + session + `","turn_id":"t1","cwd":` + string(cwd) + `,"hook_event_name":"` + event +
		`","model":"m","permission_mode":"default"` + fields + `}`
	var out, errOut bytes.Buffer
	if code := hlcli.Main([]string{"hook-loop", "codex-hook", "--store", store, "--config", filepath.Join(dir, "hook-loop.json")},
		strings.NewReader(in), &out, &errOut); code != 0 {
		t.Fatalf("codex-hook %s %s: exit %d: %s%s", session, event, code, out.String(), errOut.String())
	}
}

// The board over every project, in a real browser: three projects (two on
// JSONL files, one in PostgreSQL) grouped with the waiting one first, the
// buttons acting on each session's own project's log, and a nudge shown as a
// browser notification.
func TestBoardAllInBrowser(t *testing.T) {
	ctx := browser(t)
	pg := pgtest.Start(t, pgtest.Options{})
	t.Setenv(eventlog.StateDirEnv, t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOOK_LOOP_STORE", "")
	t.Setenv("HOOK_LOOP_PROJECT", "")
	const waits, works, team = "019a2b6c-7f3e-7c21-9d55-2c1f0e8a4b10", "019a2b6c-8a01-7c21-9d55-8d0be31c77f2", "019a2b6c-9b77-7c21-9d55-41aa5e0c9d03"
	a, b, c := newProject(t), newProject(t), newProject(t)
	a.start(t, waits)
	a.askApproval(t, waits)
	b.start(t, works)
	b.refuseStop(t, works)
	pgHook(t, pg.URL(), c.dir, team, "SessionStart", `,"source":"startup"`)
	pgHook(t, pg.URL(), c.dir, team, "UserPromptSubmit", `,"prompt":"draft a proposal for the cache"`)

	f, err := fleet.Open(fleet.Options{StateDir: os.Getenv(eventlog.StateDirEnv), StoreURL: pg.URL(), Getenv: os.Getenv, StorePoll: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	srv, err := board.NewAll(f)
	if err != nil {
		t.Fatal(err)
	}
	n := &nudge.Notifier{Show: srv.Nudge}
	looks := func() []nudge.Look {
		var out []nudge.Look
		for _, p := range f.Projects() {
			out = append(out, nudge.Look{Project: p.Name, Sessions: p.Watcher.Sessions()})
		}
		return out
	}
	n.Prime(looks())
	wake := make(chan struct{}, 1)
	srv.OnChange = func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	ln, err := board.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go n.Run(sctx, wake, looks)
	go func() { done <- srv.Serve(sctx, ln) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()

	do(t, ctx, "load the board over every project",
		chromedp.Navigate(srv.URL(ln)),
		chromedp.WaitVisible(css(card(team)+`[data-state="drafting"]`)),
		chromedp.WaitVisible(css(`#live.ok`)),
	)
	groups, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("section.group .group-head .proj")].map(e => e.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 3 || groups[0] != a.dir {
		t.Fatalf("project groups %q: want 3, %s (waiting) first", groups, a.dir)
	}
	if s := text(t, ctx, `section.group:has(`+card(team)+`) .badge.store`); s != "team store" {
		t.Errorf("the store's project is marked %q", s)
	}
	if s := text(t, ctx, card(team)+` .badge.machine`); !strings.HasSuffix(s, ":"+c.dir) {
		t.Errorf("the store session's machine:checkout badge %q", s)
	}

	// Browser notifications, as granted by the person (a recorder stands in
	// for the browser's own, which headless Chromium does not show).
	do(t, ctx, "record notifications", chromedp.Evaluate[chromedp.Void](`window.__nudges = [];
		window.Notification = function (title, o) { window.__nudges.push(title + " | " + o.body); };
		window.Notification.permission = "granted";`))
	b.askApproval(t, works)
	got, err := chromedp.Run(ctx, chromedp.Poll[string](`window.__nudges.length ? window.__nudges[0] : null`, chromedp.WithPollingInterval(100*time.Millisecond)))
	if err != nil {
		t.Fatalf("no browser notification: %v", err)
	}
	if !strings.HasPrefix(got, "hook-loop: waiting | hook-loop: codex session ") || !strings.Contains(got, b.dir) {
		t.Errorf("browser notification %q", got)
	}

	// Each button acts on its own project's log: pause the store's session,
	// approve a file project's.
	press(t, ctx, "pause the store's session", card(team)+` button[data-action="pause"]`)
	do(t, ctx, "see it paused", chromedp.WaitVisible(css(card(team)+` .badge.paused`)))
	if *update {
		if err := os.MkdirAll(filepath.Join("..", "docs", "img"), 0o755); err != nil {
			t.Fatal(err)
		}
		// The whole page: every project's group, the store's last.
		do(t, ctx, "scroll to the top", chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("..", "docs", "img", "board-all.png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	press(t, ctx, "press Approve", card(waits)+` button[data-action="approve"]`)
	waitLog(t, ctx, a, overview.OperatorApproved, waits)
	if len(b.events(t, overview.OperatorApproved)) != 0 {
		t.Error("the approve reached another project's log")
	}
	var paused bool
	for _, p := range f.Projects() {
		if s, ok := p.Watcher.Session(team); ok && p.Store {
			paused = s.Paused
		}
	}
	if !paused {
		t.Error("the store does not have the team session paused")
	}
}
