package operator_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/gallery"
	"github.com/hook-loop/hook-loop/hook"
	"github.com/hook-loop/hook-loop/loop"
	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/loop/session"
	"github.com/hook-loop/hook-loop/operator"
)

// fixture is a project running the gallery's approval_gate loop, driven by
// hook events as a harness would send them and by a person's controls.
type fixture struct {
	t   *testing.T
	eng *engine.Engine
	log *session.Log
	ctl operator.Controls
}

func newFixture(t *testing.T, mode string) *fixture {
	t.Helper()
	t.Setenv("HOOK_LOOP_STATE_DIR", t.TempDir())
	root := t.TempDir()
	src, err := gallery.Get("approval_gate")
	if err != nil {
		t.Fatal(err)
	}
	spec, _, err := dsl.Parse(filepath.Join(root, "hook-loop.json"), src)
	if err != nil {
		t.Fatal(err)
	}
	l := session.Open(filepath.Join(root, ".hook-loop", "events.jsonl"))
	eng := &engine.Engine{Spec: spec, Root: root, Mode: mode}
	return &fixture{t: t, eng: eng, log: l, ctl: operator.Controls{Log: operator.FileLog(l), Engine: eng}}
}

func (f *fixture) hook(ev loop.HookEvent) loop.Decision {
	f.t.Helper()
	if ev.SessionID == "" {
		ev.SessionID = "s1"
	}
	ev.Harness = "test"
	var d loop.Decision
	if err := f.log.Update(func(tx session.Tx) error {
		var err error
		d, err = f.eng.Handle(context.Background(), tx, ev)
		return err
	}); err != nil {
		f.t.Fatalf("hook %s: %v", ev.Name, err)
	}
	return d
}

func (f *fixture) do(r operator.Request) (operator.Result, error) {
	f.t.Helper()
	if r.Session == "" {
		r.Session = "s1"
	}
	return f.ctl.Apply(context.Background(), r)
}

func (f *fixture) must(r operator.Request) operator.Result {
	f.t.Helper()
	res, err := f.do(r)
	if err != nil {
		f.t.Fatalf("%s: %v", r.Action, err)
	}
	return res
}

func (f *fixture) view() session.View {
	var v session.View
	_ = f.log.View(func(tx session.Tx) error { v = tx.Session("s1"); return nil })
	return v
}

func (f *fixture) events(typ string) []eventlog.Event {
	var out []eventlog.Event
	_ = f.log.Scan(nil, func(_ int, e eventlog.Event) error {
		if e.EventType == typ {
			out = append(out, e)
		}
		return nil
	})
	return out
}

// toWaiting drives the session into pending_approval, as the agent would.
func (f *fixture) toWaiting() {
	f.hook(loop.HookEvent{Name: loop.EventSessionStart})
	f.hook(loop.HookEvent{Name: loop.EventUserPromptSubmit, Prompt: "draft it"})
	f.hook(loop.HookEvent{Name: loop.EventStop, LastAssistantMessage: "Draft done. APPROVAL REQUESTED"})
	if s := f.view().State; s != "pending_approval" {
		f.t.Fatalf("state %q, want pending_approval", s)
	}
}

var risky = loop.HookEvent{Name: loop.EventPreToolUse, ToolName: "Bash", Command: "rm -rf build"}

func TestPauseRefusesToolsUntilResume(t *testing.T) {
	f := newFixture(t, "")
	f.hook(loop.HookEvent{Name: loop.EventSessionStart})
	f.must(operator.Request{Action: operator.Pause, Reason: "lunch"})
	d := f.hook(loop.HookEvent{Name: loop.EventPreToolUse, ToolName: "Bash", Command: "ls"})
	if d.Action != loop.Block || !strings.Contains(d.Reason, "paused by the person: lunch") {
		t.Fatalf("tool call while paused: %+v", d)
	}
	if d := f.hook(loop.HookEvent{Name: loop.EventStop}); d.Action != loop.Allow {
		t.Errorf("stop while paused: %+v, want allowed", d)
	}
	if _, err := f.do(operator.Request{Action: operator.Pause}); !errors.Is(err, operator.ErrRefused) {
		t.Errorf("second pause: %v, want refused", err)
	}
	f.must(operator.Request{Action: operator.Resume})
	if d := f.hook(loop.HookEvent{Name: loop.EventPreToolUse, ToolName: "Bash", Command: "ls"}); d.Action == loop.Block {
		t.Errorf("tool call after resume: %+v", d)
	}
	p := f.events(eventlog.TypeOperatorPaused)
	if len(p) != 1 || p[0].Actor != "person" || p[0].Payload["reason"] != "lunch" {
		t.Errorf("log: %+v, want one operator.paused by person with the reason", p)
	}
	if len(f.events(eventlog.TypeOperatorResumed)) != 1 {
		t.Error("resume not recorded")
	}
}

func TestCancelUngatesWithOutcomeCancelled(t *testing.T) {
	f := newFixture(t, "")
	f.hook(loop.HookEvent{Name: loop.EventSessionStart})
	f.must(operator.Request{Action: operator.Cancel, Reason: "wrong task"})
	v := f.view()
	if v.Outcome != engine.OutcomeCancelled || v.Cancelled != "wrong task" {
		t.Fatalf("view after cancel: outcome %q cancelled %q", v.Outcome, v.Cancelled)
	}
	if d := f.hook(risky); d.Action != loop.Allow {
		t.Errorf("risky call after cancel: %+v, want allowed (not gated)", d)
	}
	if d := f.hook(loop.HookEvent{Name: loop.EventStop}); d.Action != loop.Allow {
		t.Errorf("stop after cancel: %+v", d)
	}
	if _, err := f.do(operator.Request{Action: operator.Approve}); !errors.Is(err, operator.ErrRefused) {
		t.Errorf("approve after cancel: %v, want refused", err)
	}
	// reset takes it back into the loop
	res := f.must(operator.Request{Action: operator.Reset})
	if res.To != "backlog" || f.view().Cancelled != "" || f.view().Outcome != "" {
		t.Errorf("reset: %+v view %+v", res, f.view())
	}
	if d := f.hook(risky); d.Action != loop.Block {
		t.Errorf("risky call after reset: %+v, want gated again", d)
	}
}

func TestApproveMovesAWaitingSessionOn(t *testing.T) {
	f := newFixture(t, "")
	f.hook(loop.HookEvent{Name: loop.EventSessionStart})
	if _, err := f.do(operator.Request{Action: operator.Approve}); !errors.Is(err, operator.ErrRefused) || !strings.Contains(err.Error(), "does not wait") {
		t.Fatalf("approve outside a waiting state: %v", err)
	}
	f.toWaiting()
	res := f.must(operator.Request{Action: operator.Approve, Reason: "looks good"})
	if !res.Applied || res.From != "pending_approval" || res.To != "approved" {
		t.Fatalf("approve: %+v", res)
	}
	tr := f.events(eventlog.TypeStateTransitioned)
	last := tr[len(tr)-1]
	if last.Actor != "person" || last.Payload["event"] != "approval_granted" {
		t.Errorf("transition: %+v", last)
	}
	a := f.events(eventlog.TypeOperatorApproved)
	if len(a) != 1 || a[0].Payload["reason"] != "looks good" {
		t.Errorf("operator.approved: %+v", a)
	}
}

func TestRejectAppliesTheRejectEvent(t *testing.T) {
	f := newFixture(t, "")
	f.toWaiting()
	if res := f.must(operator.Request{Action: operator.Reject}); res.To != "rejected" {
		t.Fatalf("reject: %+v", res)
	}
}

func TestAdvanceChecksGuardsUnlessForced(t *testing.T) {
	src := `{"loop": {"id": "g", "initial_state": "a", "states": ["a", "done", "stopped"], "events": ["finish"],
	  "transitions": [{"from": "a", "event": "finish", "to": "done", "guards": ["evidence_bound_to_criteria"]}]}}`
	f := newFixture(t, "")
	spec, _, err := dsl.Parse("hook-loop.json", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	f.eng.Spec = spec
	f.hook(loop.HookEvent{Name: loop.EventSessionStart})
	_, err = f.do(operator.Request{Action: operator.Advance, Event: "finish"})
	if !errors.Is(err, operator.ErrRefused) || !strings.Contains(err.Error(), "evidence_bound_to_criteria") {
		t.Fatalf("advance without evidence: %v", err)
	}
	if _, err := f.do(operator.Request{Action: operator.Advance, Event: "nope"}); !errors.Is(err, operator.ErrRefused) {
		t.Errorf("advance on an unknown event: %v", err)
	}
	res := f.must(operator.Request{Action: operator.Advance, Event: "finish", Force: true})
	if res.To != "done" || res.Outcome != "completed" {
		t.Fatalf("forced advance: %+v", res)
	}
	tr := f.events(eventlog.TypeStateTransitioned)
	if got := tr[len(tr)-1].Payload["forced"]; got != true {
		t.Errorf("forced transition payload: %+v", tr[len(tr)-1].Payload)
	}
	if _, err := f.do(operator.Request{Action: operator.Cancel}); !errors.Is(err, operator.ErrRefused) || !strings.Contains(err.Error(), "has ended") {
		t.Errorf("cancel of a finished session: %v, want refused", err)
	}
}

func TestUnknownSessionIsRefused(t *testing.T) {
	f := newFixture(t, "")
	f.hook(loop.HookEvent{Name: loop.EventSessionStart})
	if _, err := f.do(operator.Request{Action: operator.Pause, Session: "other"}); !errors.Is(err, operator.ErrRefused) {
		t.Errorf("pause of an unknown session: %v", err)
	}
}

func TestLiveListsOpenSessions(t *testing.T) {
	f := newFixture(t, "")
	f.hook(loop.HookEvent{Name: loop.EventSessionStart, SessionID: "a"})
	f.hook(loop.HookEvent{Name: loop.EventSessionStart, SessionID: "b"})
	if _, err := f.do(operator.Request{Action: operator.Cancel, Session: "b"}); err != nil {
		t.Fatal(err)
	}
	f.toWaiting()
	var live []string
	_ = f.log.View(func(tx session.Tx) error { live = f.ctl.Live(tx); return nil })
	if strings.Join(live, ",") != "a,s1" {
		t.Errorf("live = %v, want [a s1]", live)
	}
}

func TestWarnModeLetsARiskyCommandRunAndTellsTheModel(t *testing.T) {
	f := newFixture(t, dsl.ModeWarn)
	f.hook(loop.HookEvent{Name: loop.EventSessionStart})
	d := f.hook(risky)
	if d.Action == loop.Block {
		t.Fatalf("warn mode blocked: %+v", d)
	}
	if !strings.Contains(d.Context, "would have been refused") {
		t.Errorf("the model is not told: %+v", d)
	}
	wb := f.events(eventlog.TypeWouldBlock)
	if len(wb) != 1 || wb[0].Payload["kind"] != "tool" || wb[0].Payload["reason"] == "" {
		t.Fatalf("would_block: %+v", wb)
	}
	if len(f.events("tool_blocked")) != 0 {
		t.Error("tool_blocked recorded in warn mode")
	}
	// A refused stop becomes an allowed one, with what is missing said.
	d = f.hook(loop.HookEvent{Name: loop.EventStop, LastAssistantMessage: "bye"})
	if d.Action != loop.Allow || !strings.Contains(d.SystemMessage, "would have been refused") {
		t.Errorf("stop in warn mode: %+v", d)
	}
	if v := f.view(); v.WouldBlocks != 2 || v.LastWouldBlock == "" || v.StopBlocks != 0 {
		t.Errorf("view: would_blocks %d last %q stop_blocks %d", v.WouldBlocks, v.LastWouldBlock, v.StopBlocks)
	}
}

func TestAuditModeIsSilent(t *testing.T) {
	f := newFixture(t, dsl.ModeAudit)
	f.hook(loop.HookEvent{Name: loop.EventSessionStart})
	d := f.hook(risky)
	if d.Action != loop.Allow || d.Context != "" {
		t.Fatalf("audit mode answered %+v, want a silent allow", d)
	}
	d = f.hook(loop.HookEvent{Name: loop.EventStop})
	if d.Action != loop.Allow || d.SystemMessage != "" {
		t.Errorf("stop in audit mode: %+v", d)
	}
	if n := len(f.events(eventlog.TypeWouldBlock)); n != 2 {
		t.Errorf("%d would_block records, want 2", n)
	}
}

func TestPauseHoldsInWarnMode(t *testing.T) {
	f := newFixture(t, dsl.ModeWarn)
	f.hook(loop.HookEvent{Name: loop.EventSessionStart})
	f.must(operator.Request{Action: operator.Pause})
	if d := f.hook(loop.HookEvent{Name: loop.EventPreToolUse, ToolName: "Bash", Command: "ls"}); d.Action != loop.Block {
		t.Errorf("paused session in warn mode: %+v, want refused", d)
	}
}

func TestEnforceIsTheDefault(t *testing.T) {
	f := newFixture(t, "")
	f.hook(loop.HookEvent{Name: loop.EventSessionStart})
	if d := f.hook(risky); d.Action != loop.Block {
		t.Errorf("enforce: %+v", d)
	}
	f.eng.Spec.Definition.Mode = dsl.ModeAudit
	if f.eng.EffectiveMode() != dsl.ModeAudit {
		t.Error("loop.mode not used")
	}
	f.eng.Mode = dsl.ModeWarn
	if f.eng.EffectiveMode() != dsl.ModeWarn {
		t.Error("the override does not win over loop.mode")
	}
}

// deadlineSeen is a lifecycle whose chains run inline, under the log lock
// (Active false: nothing to stage), recording the longest time left it was
// given; with no deadline at all it records -1.
type deadlineSeen struct{ longest time.Duration }

func (*deadlineSeen) Active(string) bool { return false }

func (d *deadlineSeen) Fire(ctx context.Context, _ string, _ any) []engine.LifecycleRecord {
	dl, ok := ctx.Deadline()
	switch {
	case !ok:
		d.longest = -1
	case d.longest >= 0:
		d.longest = max(d.longest, time.Until(dl))
	}
	return nil
}

// A person's action runs lifecycle chains under the log lock within the same
// budget a hook gives them, never for as long as the caller's context allows.
func TestApplyCapsLifecycleUnderTheLock(t *testing.T) {
	f := newFixture(t, "")
	f.toWaiting()
	seen := &deadlineSeen{}
	f.eng.Lifecycle = seen
	f.must(operator.Request{Action: operator.Approve})
	if seen.longest < 0 || seen.longest > hook.LockedLifecycleBudget {
		t.Fatalf("lifecycle under the lock had %v left (-1: no deadline), want at most %v", seen.longest, hook.LockedLifecycleBudget)
	}
	if seen.longest == 0 {
		t.Fatal("the lifecycle was never fired")
	}
}

// chainProbe is a lifecycle with executors at every point that records, for
// each chain, whether the log's lock was held while it ran and the time its
// context left it; block makes each chain take all the time it is given.
type chainProbe struct {
	log    string
	block  bool
	locked []bool
	left   []time.Duration
}

func (*chainProbe) Active(string) bool { return true }

func (p *chainProbe) Fire(ctx context.Context, _ string, _ any) []engine.LifecycleRecord {
	err := session.Open(p.log, eventlog.WithLockTimeout(50*time.Millisecond)).Update(func(session.Tx) error { return nil })
	p.locked = append(p.locked, errors.Is(err, eventlog.ErrLockTimeout))
	left := time.Duration(-1)
	if dl, ok := ctx.Deadline(); ok {
		left = time.Until(dl)
	}
	p.left = append(p.left, left)
	if p.block {
		select {
		case <-ctx.Done():
		case <-time.After(time.Minute):
		}
	}
	return nil
}

// A person's action whose context has a deadline (a board request's) answers
// inside it: a chain that takes all the time it is given, with too little
// left for an unlocked chain and the passes after it, runs under the lock
// within the locked budget instead of unlocked until the deadline.
func TestApplyAnswersInsideItsDeadline(t *testing.T) {
	t.Setenv(eventlog.LockTimeoutEnv, "")
	f := newFixture(t, "")
	f.toWaiting()
	chains := &chainProbe{log: f.log.Path(), block: true}
	f.eng.Lifecycle = chains
	const deadline = 4 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	start := time.Now()
	res, err := f.ctl.Apply(ctx, operator.Request{Action: operator.Approve, Session: "s1"})
	took := time.Since(start)
	if err != nil || !res.Applied {
		t.Fatalf("approve: %+v, %v", res, err)
	}
	if took >= deadline {
		t.Fatalf("answered after %v, past its %v deadline", took.Round(time.Millisecond), deadline)
	}
	if len(chains.locked) == 0 || !chains.locked[0] {
		t.Errorf("chains locked %v: the first ran unlocked with no time left for the passes after it", chains.locked)
	}
}

// The time an action sets aside for the passes after an unlocked chain is
// its log's own lock wait, not HOOK_LOOP_LOCK_TIMEOUT's: a log that waits
// 100 ms leaves a 6 s deadline room for an unlocked chain (given what is left
// less two lock waits, the locked budget and a second), one that waits 5 s
// does not.
func TestApplyReserveFollowsTheLogsLockWait(t *testing.T) {
	const deadline = 6 * time.Second
	for _, c := range []struct {
		name      string
		env, wait time.Duration
		unlocked  bool
	}{
		{"short wait", 5 * time.Second, 100 * time.Millisecond, true},
		{"long wait", 100 * time.Millisecond, 5 * time.Second, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(eventlog.LockTimeoutEnv, c.env.String())
			f := newFixture(t, "")
			f.toWaiting()
			chains := &chainProbe{log: f.log.Path()}
			f.eng.Lifecycle = chains
			ctl := operator.Controls{Log: operator.FileLog(session.Open(f.log.Path(), eventlog.WithLockTimeout(c.wait))), Engine: f.eng}
			ctx, cancel := context.WithTimeout(context.Background(), deadline)
			defer cancel()
			if res, err := ctl.Apply(ctx, operator.Request{Action: operator.Approve, Session: "s1"}); err != nil || !res.Applied {
				t.Fatalf("approve: %+v, %v", res, err)
			}
			if len(chains.locked) == 0 || chains.locked[0] == c.unlocked {
				t.Fatalf("chains locked %v: want the first unlocked=%v", chains.locked, c.unlocked)
			}
			reserve := 2*c.wait + hook.LockedLifecycleBudget + time.Second
			if c.unlocked && chains.left[0] > deadline-reserve {
				t.Errorf("the unlocked chain had %v, more than the deadline less the reserve (%v)", chains.left[0], deadline-reserve)
			}
		})
	}
}

// An action whose context has already ended is not applied, and the error
// says which action on which session the deadline cut short.
func TestApplyPastItsDeadlineSaysWhat(t *testing.T) {
	f := newFixture(t, "")
	f.toWaiting()
	f.eng.Lifecycle = &chainProbe{log: f.log.Path()}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := f.ctl.Apply(ctx, operator.Request{Action: operator.Approve, Session: "s1"})
	if err == nil || res.Applied || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "approve session s1: not applied") {
		t.Fatalf("approve past the deadline: %+v, %v", res, err)
	}
}
