package engine_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/loop"
	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/loop/session"
)

// failing is a lifecycle runner whose required hook fails at point.
type failing struct{ point string }

func (r failing) Fire(_ context.Context, point string, c any) []engine.LifecycleRecord {
	if point != r.point {
		return nil
	}
	return []engine.LifecycleRecord{{Type: engine.RecordFailed, Payload: map[string]any{"point": point, "hook": "audit", "why": "timed out after 2s", "required": true}}}
}

// A required hook's failure at a point with no proceed to refuse with holds the
// session: its tool calls and stop are refused with the hook's reason.
func TestRequiredHookFailureHoldsTheSession(t *testing.T) {
	f := newFixture(t, planLoop)
	f.eng.Lifecycle = failing{point: "phase_changed"}
	f.handle(prompt("go")) // kickoff: backlog → planning fires phase_changed
	for _, ev := range []loop.HookEvent{pre("Bash", "ls"), stop("")} {
		d := f.handle(ev)
		if d.Action != loop.Block || !strings.Contains(d.Reason, `required lifecycle hook "audit" failed at phase_changed`) {
			t.Fatalf("%s of a held session: %+v", ev.Name, d)
		}
	}
	if n := f.count(session.TypeLifecycleHeld); n != 1 {
		t.Fatalf("lifecycle_held recorded %d times", n)
	}
	// Not required: recorded, nothing held.
	g := newFixture(t, planLoop)
	g.eng.Lifecycle = optional{}
	g.handle(prompt("go"))
	if d := g.handle(pre("Bash", "ls")); d.Action == loop.Block {
		t.Fatalf("an optional hook's failure held the session: %+v", d)
	}
}

type optional struct{}

func (optional) Fire(_ context.Context, point string, c any) []engine.LifecycleRecord {
	return []engine.LifecycleRecord{{Type: engine.RecordFailed, Payload: map[string]any{"point": point, "hook": "x", "why": "boom"}}}
}

// A declaration that did not load is told once per session; under fail_closed
// the session's tool calls and stop are refused until it loads.
func TestHooksLoadFailed(t *testing.T) {
	rec := &engine.LifecycleRecord{Type: session.TypeHooksLoadFailed, Payload: map[string]any{"why": "hooks[0].timeoutSeconds: expected a positive number"}}
	cases := []struct {
		name       string
		failClosed bool
	}{{"fail-open", false}, {"fail_closed", true}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := planLoop
			if c.failClosed {
				text = strings.Replace(planLoop, `"loop": {`, `"loop": {"fail_closed": true,`, 1)
			}
			f := newFixture(t, text)
			f.eng.HooksLoadFailed = rec
			d := f.handle(prompt("go"))
			if !strings.Contains(d.SystemMessage, "did not load") {
				t.Fatalf("the person is not told: %+v", d)
			}
			d = f.handle(pre("Bash", "ls"))
			if strings.Contains(d.SystemMessage, "did not load") {
				t.Errorf("told twice: %+v", d)
			}
			if blocked := d.Action == loop.Block; blocked != c.failClosed {
				t.Fatalf("tool call blocked = %v: %+v", blocked, d)
			}
			if f.count(session.TypeHooksLoadFailed) != 1 {
				t.Fatalf("hooks.load_failed recorded %d times", f.count(session.TypeHooksLoadFailed))
			}
			f.eng.HooksLoadFailed = nil // it loads again
			if d := f.handle(pre("Bash", "ls")); d.Action == loop.Block {
				t.Fatalf("refused after the declaration loaded: %+v", d)
			}
		})
	}
}

// A load failure of some entries only (partial) holds nothing even under
// fail_closed: the entries that loaded still run, and a required one that did
// not load refuses where it would run.
func TestPartialHooksLoadFailedDoesNotHold(t *testing.T) {
	rec := &engine.LifecycleRecord{Type: session.TypeHooksLoadFailed, Payload: map[string]any{
		"why": `hooks[1] ("lint").path: /x is not there`, "partial": true}}
	text := strings.Replace(planLoop, `"loop": {`, `"loop": {"fail_closed": true,`, 1)
	f := newFixture(t, text)
	f.eng.HooksLoadFailed = rec
	d := f.handle(prompt("go"))
	if !strings.Contains(d.SystemMessage, "some lifecycle hooks did not load") {
		t.Fatalf("the person is not told: %+v", d)
	}
	if d := f.handle(pre("Bash", "ls")); d.Action == loop.Block {
		t.Fatalf("tool call refused for a partial load failure: %+v", d)
	}
	if f.count(session.TypeHooksLoadFailed) != 1 {
		t.Fatalf("hooks.load_failed recorded %d times", f.count(session.TypeHooksLoadFailed))
	}
}
