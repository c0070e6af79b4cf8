package board_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/hook-loop/hook-loop/lifecycle"
	"github.com/hook-loop/hook-loop/overview"
	"github.com/hook-loop/hook-loop/sdk/hooks"
)

// personHooks records what the board's buttons send the user's hooks and
// refuses a pause.
type personHooks struct {
	mu     sync.Mutex
	inputs []hooks.InputReceivedContext
	phases []hooks.PhaseChangedContext
}

func (h *personHooks) InputReceived(_ context.Context, c *hooks.InputReceivedContext) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.inputs = append(h.inputs, *c)
	if c.Command == "pause" {
		c.Proceed, c.Reason = false, "no pausing from the board"
	}
	return nil
}

func (h *personHooks) PhaseChanged(_ context.Context, c *hooks.PhaseChangedContext) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.phases = append(h.phases, *c)
	return nil
}

// The board's buttons reach the user's lifecycle hooks as the CLI's controls
// do: input_received from the person before the control acts (a refusal stops
// it and the page says why), phase_changed with actor person for what it moves.
func TestBoardButtonsRunLifecycleHooks(t *testing.T) {
	ctx := browser(t)
	p := newProject(t)
	const waiting, working = "019a2b6c-7f3e-7c21-9d55-2c1f0e8a4b10", "019a2b6c-8a01-7c21-9d55-8d0be31c77f2"
	p.start(t, waiting)
	p.askApproval(t, waiting)
	p.start(t, working)
	h := &personHooks{}
	r, err := lifecycle.NewRunner(lifecycle.Entry{Name: "person-hooks", Handler: h})
	if err != nil {
		t.Fatal(err)
	}
	_, url := p.serveWith(t, r)

	do(t, ctx, "load the board",
		chromedp.Navigate(url),
		chromedp.WaitVisible(css(card(waiting)+`[data-state="pending_approval"]`)),
		chromedp.WaitVisible(css(`#live.ok`)),
	)
	press(t, ctx, "press Pause", card(working)+` button[data-action="pause"]`)
	// The refusal is logged (hooks.refused), so the view updates right after
	// it: the reason must still be on the page once that update is in.
	waitEvent(t, ctx, p, "hooks.refused", working, "")
	do(t, ctx, "see the refusal", chromedp.WaitVisible(css(`#live.bad`)))
	if msg := text(t, ctx, `#live`); !strings.Contains(msg, "no pausing from the board") {
		t.Errorf("the page says %q, want the hook's reason", msg)
	}
	if ev := p.events(t, overview.OperatorPaused); len(ev) != 0 {
		t.Errorf("a refused pause was applied: %v", ev)
	}

	press(t, ctx, "press Approve", card(waiting)+` button[data-action="approve"]`)
	waitLog(t, ctx, p, overview.OperatorApproved, waiting)

	h.mu.Lock()
	defer h.mu.Unlock()
	var commands []string
	for _, c := range h.inputs {
		if c.Source != "person" || c.Kind != "command" || c.Actor != "person" {
			t.Errorf("input_received from a button: %+v", c)
		}
		commands = append(commands, c.Command)
	}
	if strings.Join(commands, ",") != "pause,approve" {
		t.Errorf("input_received commands = %v, want pause then approve", commands)
	}
	var moved bool
	for _, c := range h.phases {
		if c.SessionID == waiting && c.From == "pending_approval" && c.Actor == "person" {
			moved = true
		}
	}
	if !moved {
		t.Errorf("no phase_changed with actor person for the approval: %+v", h.phases)
	}
}
