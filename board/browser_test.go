package board_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/hook-loop/hook-loop/overview"
	"github.com/hook-loop/hook-loop/testkit/need"
)

var update = flag.Bool("update", false, "write the boards' screenshots (docs/board.png, docs/img/board-all.png)")

// browser starts headless Chromium for the test, or skips it (fails it under
// CI) when none is installed (scripts/install-chromium.sh installs one).
func browser(t *testing.T) context.Context {
	t.Helper()
	path := need.Chromium(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // CI runs as root, where Chromium's sandbox refuses to start
		chromedp.WindowSize(1280, 1000),
		chromedp.Flag("hide-scrollbars", true),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(alloc)
	// The first run starts the browser, which lives as long as that run's
	// context: it gets no deadline, the test's steps do.
	if err := chromedp.Do(ctx); err != nil {
		cancelCtx()
		cancelAlloc()
		t.Fatalf("start %s: %v", path, err)
	}
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	return ctx
}

func card(session string) string { return `article[data-session="` + session + `"]` }

func css(s string) chromedp.CSS { return chromedp.CSS(s) }

// text reads the text of the first element matching sel.
func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(css(sel)))
	if err != nil {
		t.Fatalf("text of %s: %v", sel, err)
	}
	return s
}

func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// press clicks the first element matching sel. The board redraws a card
// when the log changes, which can take away the node a click has just found
// ("Could not find node with given id"; the click was not made): it is
// found again and clicked.
func press(t *testing.T, ctx context.Context, what, sel string) {
	t.Helper()
	for {
		err := chromedp.Do(ctx, chromedp.Click(css(sel)))
		if err == nil {
			return
		}
		if ctx.Err() != nil || !strings.Contains(err.Error(), "Could not find node") {
			t.Fatalf("%s: %v", what, err)
		}
	}
}

// waitLog waits until the log holds an event of typ for session by a person.
func waitLog(t *testing.T, ctx context.Context, p *project, typ, session string) {
	t.Helper()
	waitEvent(t, ctx, p, typ, session, "person")
}

// waitEvent waits until the log holds an event of typ for session by actor
// (any actor when "").
func waitEvent(t *testing.T, ctx context.Context, p *project, typ, session, actor string) {
	t.Helper()
	for {
		for _, e := range p.events(t, typ) {
			if e.SessionID == session && (actor == "" || e.Actor == actor) {
				return
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the log never recorded %s for %s", typ, session)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func TestBoardInBrowser(t *testing.T) {
	ctx := browser(t)
	p := newProject(t)
	const waiting, working, fresh = "019a2b6c-7f3e-7c21-9d55-2c1f0e8a4b10", "019a2b6c-8a01-7c21-9d55-8d0be31c77f2", "019a2b6c-9b77-7c21-9d55-41aa5e0c9d03"
	p.start(t, waiting)
	p.refuseStop(t, waiting)
	p.start(t, working)
	p.refuseStop(t, working)
	p.refuseStop(t, working)
	p.hook(t, fresh, "SessionStart", `,"source":"startup"`)
	_, url := p.serve(t)

	do(t, ctx, "load the board",
		chromedp.Navigate(url),
		chromedp.WaitVisible(css(card(working)+`[data-state="drafting"]`)),
		chromedp.WaitVisible(css(`#live.ok`)),
	)
	if title, _ := chromedp.Run(ctx, chromedp.Title()); !strings.Contains(title, "hook-loop board") {
		t.Errorf("title %q", title)
	}

	// A hook runs: the session moves on the page without a reload.
	p.askApproval(t, waiting)
	do(t, ctx, "see the session move",
		chromedp.WaitVisible(css(card(waiting)+`[data-state="pending_approval"]`)),
		chromedp.WaitVisible(css(card(waiting)+` g.state.current[data-state="pending_approval"]`)),
	)
	if q := text(t, ctx, `.waiting .question`); !strings.Contains(q, "approved") {
		t.Errorf("waiting question %q", q)
	}

	// Pause one session, approve the other; the log records both as the person's.
	press(t, ctx, "press Pause", card(working)+` button[data-action="pause"]`)
	waitLog(t, ctx, p, overview.OperatorPaused, working)
	do(t, ctx, "see the pause",
		chromedp.WaitVisible(css(card(working)+` .badge.paused`)),
		chromedp.WaitVisible(css(card(working)+` button[data-action="resume"]`)),
	)

	if *update {
		shot(t, ctx, "board.png")
	}

	press(t, ctx, "press Approve", card(waiting)+` button[data-action="approve"]`)
	waitLog(t, ctx, p, overview.OperatorApproved, waiting)
	do(t, ctx, "see the approval", chromedp.WaitVisible(css(card(waiting)+` .timeline li.k-operator`)))
	if tl := text(t, ctx, card(waiting)+` .timeline`); !strings.Contains(tl, "approved by person") {
		t.Errorf("timeline after approve:\n%s", tl)
	}
}

// shot writes a screenshot of the page's top to docs/name.
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](`window.scrollTo(0, 0)`)); err != nil {
		t.Fatal(err)
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join("..", "docs", name)
	if err := os.WriteFile(out, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", out)
}
