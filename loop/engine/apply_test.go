package engine_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/loop/session"
)

func (f *fixture) apply(in engine.LoopEvent) engine.Result {
	f.t.Helper()
	var res engine.Result
	err := f.log.Update(func(tx session.Tx) error {
		var err error
		res, err = f.eng.Apply(context.Background(), tx, "s1", in)
		return err
	})
	if err != nil {
		f.t.Fatalf("Apply %s: %v", in.Event, err)
	}
	return res
}

func (f *fixture) last() eventlog.Event {
	var last eventlog.Event
	_ = f.log.Scan(nil, func(_ int, e eventlog.Event) error { last = e; return nil })
	return last
}

// Apply starts the session as Handle does, and takes a transition.
func TestApplyStartsAndTransitions(t *testing.T) {
	f := newFixture(t, planLoop)
	res := f.apply(engine.LoopEvent{Event: "kickoff", Driver: "operator", Actor: "alice", Payload: map[string]any{"note": "go", "to": "elsewhere"}})
	if !res.Applied || res.From != "backlog" || res.To != "planning" || len(res.Messages) == 0 {
		t.Fatalf("result = %+v", res)
	}
	if f.count(eventlog.TypeLoopStarted) != 1 {
		t.Errorf("loop_started = %d, want 1", f.count(eventlog.TypeLoopStarted))
	}
	// A payload key never overrides the engine's from/event/to.
	if e := f.last(); e.Actor != "alice" || e.Payload["to"] != "planning" || e.Payload["note"] != "go" {
		t.Errorf("transition = %+v", e)
	}
	if f.session("s1").State != "planning" {
		t.Errorf("state = %s", f.session("s1").State)
	}
}

// Continue (a hook's policy) ignores an event without a transition and records
// a guard refusal; Halt (the simulation's) halts in the stop state for both.
func TestApplyRejectPolicies(t *testing.T) {
	f := newFixture(t, planLoop)
	res := f.apply(engine.LoopEvent{Event: "step_done"})
	if res.Applied || res.Halted || res.Reason != "No transition for state='backlog', event='step_done'" {
		t.Errorf("Continue, no transition: %+v", res)
	}
	if n := f.count(eventlog.TypeTransitionRejected); n != 0 {
		t.Errorf("an event without a transition is ignored under Continue, got %d rejections", n)
	}

	for _, ev := range []string{"kickoff", "plan_ready", "step_done"} {
		f.apply(engine.LoopEvent{Event: ev})
	}
	res = f.apply(engine.LoopEvent{Event: "all_steps_pass"})
	if res.Applied || res.Halted || !slices.Equal(res.Missing, []string{"evidence_bound_to_criteria"}) || f.session("s1").State != "verifying" {
		t.Errorf("Continue, missing guard: %+v in %s", res, f.session("s1").State)
	}

	res = f.apply(engine.LoopEvent{Event: "all_steps_pass", OnReject: engine.Halt, Actor: "runtime"})
	if !res.Halted || res.To != "stopped" || res.Outcome != "stopped" {
		t.Fatalf("Halt, missing guard: %+v", res)
	}
	v := f.session("s1")
	if v.State != "stopped" || v.Outcome != "stopped" {
		t.Errorf("view = %+v", v)
	}
	if n := f.count(eventlog.TypeTransitionRejected); n != 2 {
		t.Errorf("rejections = %d, want 2", n)
	}
}

// A granted guard, the evidence a hook counts, and Force.
func TestApplyGuards(t *testing.T) {
	for _, c := range []struct {
		name    string
		in      engine.LoopEvent
		evident bool
		applied bool
	}{
		{"granted by the caller", engine.LoopEvent{Guards: []string{"evidence_bound_to_criteria"}}, false, true},
		{"evidence a hook counts", engine.LoopEvent{EvidenceGrants: true}, true, true},
		{"evidence the simulation does not count", engine.LoopEvent{}, true, false},
		{"no evidence", engine.LoopEvent{EvidenceGrants: true}, false, false},
		{"forced", engine.LoopEvent{Force: true}, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, planLoop)
			for _, ev := range []string{"kickoff", "plan_ready", "step_done"} {
				f.apply(engine.LoopEvent{Event: ev})
			}
			if c.evident {
				f.apply(engine.LoopEvent{Record: &engine.Record{Type: eventlog.TypeEvidenceRegistered, Actor: "agent"}})
			}
			in := c.in
			in.Event = "all_steps_pass"
			res := f.apply(in)
			if res.Applied != c.applied {
				t.Fatalf("applied = %v, want %v (%+v)", res.Applied, c.applied, res)
			}
			if !c.applied {
				return
			}
			if res.Outcome != "completed" || f.session("s1").Outcome != "completed" {
				t.Errorf("outcome = %q", res.Outcome)
			}
			var tr eventlog.Event
			_ = f.log.Scan(nil, func(_ int, e eventlog.Event) error {
				if e.EventType == eventlog.TypeStateTransitioned {
					tr = e
				}
				return nil
			})
			if forced, _ := tr.Payload["forced"].(bool); forced != c.in.Force {
				t.Errorf("forced = %v in %+v", forced, tr)
			}
		})
	}
}

// Halt moves to the stop state with the reason recorded there, then the outcome.
func TestHaltRecordsReasonAndOutcome(t *testing.T) {
	f := newFixture(t, planLoop)
	f.apply(engine.LoopEvent{Event: "kickoff"})
	var res engine.Result
	err := f.log.Update(func(tx session.Tx) error {
		var err error
		res, err = f.eng.Halt(context.Background(), tx, "s1", engine.LoopEvent{
			Record: &engine.Record{Type: "budget_exhausted", Actor: "runtime", Payload: map[string]any{"reason": "max_turns"}},
		})
		return err
	})
	if err != nil || !res.Halted || res.From != "planning" || res.To != "stopped" {
		t.Fatalf("Halt = %+v, %v", res, err)
	}
	var types []string
	var reason eventlog.Event
	_ = f.log.Scan(nil, func(_ int, e eventlog.Event) error {
		types = append(types, e.EventType)
		if e.EventType == "budget_exhausted" {
			reason = e
		}
		return nil
	})
	if !slices.Equal(types[len(types)-2:], []string{"budget_exhausted", "loop_outcome"}) || reason.State != "stopped" || reason.Payload["reason"] != "max_turns" {
		t.Errorf("events %v, reason %+v", types, reason)
	}
}

func TestHaltNeedsStopStateAndReason(t *testing.T) {
	f := newFixture(t, `{"loop": {"id": "x", "initial_state": "a", "states": ["a", "done"], "events": ["go"],
		"transitions": [{"from": "a", "event": "go", "to": "done"}]}}`)
	err := f.log.Update(func(tx session.Tx) error {
		_, err := f.eng.Halt(context.Background(), tx, "s1", engine.LoopEvent{Record: &engine.Record{Type: "budget_exhausted"}})
		return err
	})
	if !errors.Is(err, engine.ErrNoStopState) {
		t.Errorf("err = %v, want ErrNoStopState", err)
	}
	err = f.log.Update(func(tx session.Tx) error {
		_, err := f.eng.Halt(context.Background(), tx, "s1", engine.LoopEvent{Event: "go"})
		return err
	})
	if err == nil {
		t.Error("Halt without a record of why must fail")
	}
}
