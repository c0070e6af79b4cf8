package sim

import (
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/session"
)

// deliveryDefinition is the Python original runtime tests' loop.
func deliveryDefinition() *dsl.Definition {
	return dsl.MustDefinitionFromJSON(`{
		"id": "software_delivery",
		"initial_state": "backlog",
		"states": ["backlog", "building", "evidence_ready", "evaluating", "needs_work", "done", "stopped"],
		"events": ["feature_selected", "evidence_recorded", "review_requested", "evaluator_passed", "evaluator_failed", "operator_stopped"],
		"transitions": [
			{"from": "backlog", "event": "feature_selected", "to": "building"},
			{"from": "building", "event": "evidence_recorded", "to": "evidence_ready"},
			{"from": "evidence_ready", "event": "review_requested", "to": "evaluating"},
			{"from": "evaluating", "event": "evaluator_passed", "to": "done", "guards": ["evidence_bound_to_criteria"]},
			{"from": "evaluating", "event": "evaluator_failed", "to": "needs_work"},
			{"from": "needs_work", "event": "feature_selected", "to": "building"}
		]
	}`)
}

func happySteps() map[string][]dsl.AgentStep {
	return map[string][]dsl.AgentStep{
		"backlog":        {{Event: "feature_selected"}},
		"building":       {{Event: "evidence_recorded", Payload: map[string]any{"evidence_id": "e1"}}},
		"evidence_ready": {{Event: "review_requested"}},
	}
}

func readLog(t *testing.T, log *session.Log) []eventlog.Event {
	t.Helper()
	var out []eventlog.Event
	err := log.Scan(func(w string) { t.Errorf("log warning: %s", w) }, func(_ int, e eventlog.Event) error {
		out = append(out, e)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// haltedBy checks that the run ended in the stop state with the outcome
// "stopped" and returns the event that halted it, recorded just before.
func haltedBy(t *testing.T, events []eventlog.Event) eventlog.Event {
	t.Helper()
	if len(events) < 2 {
		t.Fatalf("events = %v", types(events))
	}
	last := events[len(events)-1]
	if last.EventType != eventlog.TypeLoopOutcome || last.Payload["outcome"] != "stopped" || last.State != "stopped" {
		t.Fatalf("last event = %+v, want the outcome stopped", last)
	}
	return events[len(events)-2]
}

func types(events []eventlog.Event) []string {
	var out []string
	for _, e := range events {
		out = append(out, e.EventType)
	}
	return out
}

func newLog(t *testing.T) *session.Log {
	return session.Open(filepath.Join(t.TempDir(), "events.jsonl"))
}

func TestRuntimeReachesDoneOnPass(t *testing.T) {
	log := newLog(t)
	rt := NewRuntime(deliveryDefinition(), log, NewFakeAgent(happySteps()), NewFakeEvaluator([]dsl.Verdict{{Status: "PASS", Details: "evidence checked"}}))
	final, err := rt.RunUntilStop(dsl.Budget{MaxTurns: 5})
	if err != nil || final != "done" {
		t.Fatalf("RunUntilStop = %q, %v", final, err)
	}
	events := readLog(t, log)
	want := []string{"loop_started", "state_transitioned", "evidence_registered", "state_transitioned",
		"state_transitioned", "verdict_recorded", "state_transitioned", "loop_outcome"}
	if got := types(events); !slices.Equal(got, want) {
		t.Fatalf("event types = %v\nwant %v", got, want)
	}
	for _, e := range events {
		if e.SessionID != DefaultSimulationSession || e.SchemaVersion != 1 || e.EventID == "" || e.RunID == "" || e.Timestamp == "" {
			t.Errorf("event lacks the prototype's fields: %+v", e)
		}
	}
	// The Python original's field values, event by event.
	if e := events[0]; e.State != "backlog" || e.Payload["initial_state"] != "backlog" {
		t.Errorf("loop_started = %+v", e)
	}
	if e := events[2]; e.State != "building" || e.Actor != "agent" || e.Payload["evidence_id"] != "e1" {
		t.Errorf("evidence_registered = %+v", e)
	}
	if e := events[3]; e.State != "evidence_ready" || !reflect.DeepEqual(e.Payload, map[string]any{"from": "building", "event": "evidence_recorded", "to": "evidence_ready", "evidence_id": "e1"}) {
		t.Errorf("state_transitioned = %+v", e)
	}
	if e := events[5]; e.Actor != "evaluator" || e.State != "evaluating" || e.Payload["status"] != "PASS" || e.Payload["details"] != "evidence checked" {
		t.Errorf("verdict_recorded = %+v", e)
	}
	if e := events[6]; e.Payload["verdict"] != "PASS" || e.Payload["to"] != "done" || e.Actor != "runtime" {
		t.Errorf("final transition = %+v", e)
	}
	if e := events[7]; e.Payload["outcome"] != "completed" || e.Payload["final_state"] != "done" {
		t.Errorf("outcome = %+v", e)
	}
	var s session.View
	_ = log.View(func(tx session.Tx) error { s = tx.Session(DefaultSimulationSession); return nil })
	if s.State != "done" {
		t.Errorf("recovered state = %q, want done", s.State)
	}
}

// The last turn reaching done is not a budget exhaustion.
func TestRuntimeFinalTurnReachesDone(t *testing.T) {
	log := newLog(t)
	rt := NewRuntime(deliveryDefinition(), log, NewFakeAgent(happySteps()), NewFakeEvaluator([]dsl.Verdict{{Status: "PASS"}}))
	final, err := rt.RunUntilStop(dsl.Budget{MaxTurns: 3})
	if err != nil || final != "done" {
		t.Fatalf("RunUntilStop = %q, %v", final, err)
	}
	if ev := readLog(t, log); ev[len(ev)-2].EventType != "state_transitioned" || ev[len(ev)-1].Payload["outcome"] != "completed" {
		t.Errorf("last events = %s, %+v", ev[len(ev)-2].EventType, ev[len(ev)-1])
	}
}

func TestRuntimeUsesTerminalStates(t *testing.T) {
	def := dsl.MustDefinitionFromJSON(`{"id": "approval_loop", "initial_state": "draft",
		"states": ["draft", "evaluating", "accepted", "stopped"], "terminal_states": ["accepted", "stopped"], "stop_state": "stopped",
		"events": ["submit", "evaluator_passed"],
		"transitions": [{"from": "draft", "event": "submit", "to": "evaluating"},
			{"from": "evaluating", "event": "evaluator_passed", "to": "accepted", "guards": ["evidence_bound_to_criteria"]}]}`)
	rt := NewRuntime(def, newLog(t), NewFakeAgent(map[string][]dsl.AgentStep{"draft": {{Event: "submit"}}}), NewFakeEvaluator([]dsl.Verdict{{Status: "PASS"}}))
	if final, err := rt.RunUntilStop(dsl.Budget{MaxTurns: 2}); err != nil || final != "accepted" {
		t.Fatalf("RunUntilStop = %q, %v", final, err)
	}
}

func TestRuntimeReworksAfterNeedsWork(t *testing.T) {
	log := newLog(t)
	agent := NewFakeAgent(map[string][]dsl.AgentStep{
		"backlog":        {{Event: "feature_selected"}},
		"needs_work":     {{Event: "feature_selected"}},
		"building":       {{Event: "evidence_recorded", Payload: map[string]any{"evidence_id": "first"}}, {Event: "evidence_recorded", Payload: map[string]any{"evidence_id": "second"}}},
		"evidence_ready": {{Event: "review_requested"}, {Event: "review_requested"}},
	})
	eval := NewFakeEvaluator([]dsl.Verdict{{Status: "NEEDS_WORK", Details: "- missing screenshot"}, {Status: "PASS", Details: "fixed"}})
	final, err := NewRuntime(deliveryDefinition(), log, agent, eval).RunUntilStop(dsl.Budget{MaxTurns: 8})
	if err != nil || final != "done" {
		t.Fatalf("RunUntilStop = %q, %v", final, err)
	}
	events := readLog(t, log)
	var verdicts, toNeedsWork int
	for _, e := range events {
		if e.EventType == "verdict_recorded" {
			verdicts++
		}
		if e.EventType == "state_transitioned" && e.Payload["to"] == "needs_work" && e.Payload["event"] == "evaluator_failed" {
			toNeedsWork++
		}
	}
	if verdicts != 2 || toNeedsWork != 1 {
		t.Errorf("verdicts=%d, evaluator_failed transitions=%d; want 2 and 1", verdicts, toNeedsWork)
	}
}

func TestRuntimeResumesEvaluatingWithoutAgentStep(t *testing.T) {
	log := newLog(t)
	seed(t, log,
		eventlog.Event{SessionID: "s1", RunID: "r1", State: "backlog", EventType: "loop_started", Actor: "hook-loop", Payload: map[string]any{"initial_state": "backlog"}},
		eventlog.Event{SessionID: "s1", RunID: "r1", State: "evaluating", EventType: "state_transitioned", Actor: "runtime",
			Payload: map[string]any{"from": "evidence_ready", "event": "review_requested", "to": "evaluating"}},
	)
	rt := NewRuntime(deliveryDefinition(), log, NewFakeAgent(nil), NewFakeEvaluator([]dsl.Verdict{{Status: "PASS", Details: "resumed evaluation passed"}}))
	rt.SessionID = "s1"
	final, err := rt.RunUntilStop(dsl.Budget{MaxTurns: 1})
	if err != nil || final != "done" {
		t.Fatalf("RunUntilStop = %q, %v", final, err)
	}
	events := readLog(t, log)
	if got := types(events); !slices.Equal(got, []string{"loop_started", "state_transitioned", "verdict_recorded", "state_transitioned", "loop_outcome"}) {
		t.Errorf("a resumed session must not be started again: %v", got)
	}
}

func TestRuntimeRecoversOnlyMatchingSession(t *testing.T) {
	log := newLog(t)
	seed(t, log, eventlog.Event{SessionID: "other", RunID: "r1", State: "done", EventType: "state_transitioned", Actor: "runtime", Payload: map[string]any{"to": "done"}})
	rt := NewRuntime(deliveryDefinition(), log, NewFakeAgent(map[string][]dsl.AgentStep{"backlog": {}}), NewFakeEvaluator(nil))
	rt.SessionID = "s1"
	final, err := rt.RunUntilStop(dsl.Budget{MaxTurns: 1, MaxNoProgressTurns: 1})
	if err != nil || final != "stopped" {
		t.Fatalf("RunUntilStop = %q, %v (the other session's done must not count)", final, err)
	}
	events := readLog(t, log)
	if events[1].SessionID != "s1" || events[1].EventType != "loop_started" || events[1].Payload["initial_state"] != "backlog" {
		t.Errorf("second event = %+v", events[1])
	}
	if last := haltedBy(t, events); last.EventType != "budget_exhausted" || last.State != "stopped" || last.Payload["reason"] != "no productive event" {
		t.Errorf("last event = %+v", last)
	}
}

func TestRuntimeStopsOnNoProgress(t *testing.T) {
	log := newLog(t)
	rt := NewRuntime(deliveryDefinition(), log, NewFakeAgent(map[string][]dsl.AgentStep{"backlog": {}}), NewFakeEvaluator(nil))
	final, err := rt.RunUntilStop(dsl.Budget{MaxTurns: 2, MaxNoProgressTurns: 1})
	if err != nil || final != "stopped" {
		t.Fatalf("RunUntilStop = %q, %v", final, err)
	}
	if last := haltedBy(t, readLog(t, log)); last.EventType != "budget_exhausted" || last.Payload["reason"] != "no productive event" {
		t.Errorf("halted by %+v", last)
	}
}

// With the default max_no_progress_turns (2), one idle turn is tolerated.
func TestRuntimeNoProgressDefaultIsTwo(t *testing.T) {
	log := newLog(t)
	rt := NewRuntime(deliveryDefinition(), log, NewFakeAgent(nil), NewFakeEvaluator(nil))
	if final, err := rt.RunUntilStop(dsl.Budget{MaxTurns: 1}); err != nil || final != "stopped" {
		t.Fatalf("RunUntilStop = %q, %v", final, err)
	}
	if last := haltedBy(t, readLog(t, log)); last.Payload["reason"] != "max_turns" {
		t.Errorf("one idle turn of a 1-turn budget must end on max_turns, got %+v", last)
	}
}

func TestRuntimeBudgetExhaustion(t *testing.T) {
	log := newLog(t)
	// Progress every turn, but the loop needs four turns and gets two.
	rt := NewRuntime(deliveryDefinition(), log, NewFakeAgent(happySteps()), NewFakeEvaluator([]dsl.Verdict{{Status: "PASS"}}))
	final, err := rt.RunUntilStop(dsl.Budget{MaxTurns: 2, MaxNoProgressTurns: 2})
	if err != nil || final != "stopped" {
		t.Fatalf("RunUntilStop = %q, %v", final, err)
	}
	last := haltedBy(t, readLog(t, log))
	if last.EventType != "budget_exhausted" || last.Payload["reason"] != "max_turns" || last.State != "stopped" || last.Actor != "runtime" {
		t.Errorf("last event = %+v", last)
	}
}

func TestRuntimeRejectedTransitionStops(t *testing.T) {
	log := newLog(t)
	// Straight to review without evidence: the evaluator PASSes, the guard is
	// granted, but the agent's step has no transition from backlog.
	rt := NewRuntime(deliveryDefinition(), log, NewFakeAgent(map[string][]dsl.AgentStep{"backlog": {{Event: "review_requested"}}}), NewFakeEvaluator(nil))
	final, err := rt.RunUntilStop(dsl.Budget{MaxTurns: 3})
	if err != nil || final != "stopped" {
		t.Fatalf("RunUntilStop = %q, %v", final, err)
	}
	last := haltedBy(t, readLog(t, log))
	if last.EventType != "transition_rejected" || last.Payload["event"] != "review_requested" || last.Payload["from"] != "backlog" ||
		last.Payload["reason"] != "No transition for state='backlog', event='review_requested'" {
		t.Errorf("rejection = %+v", last)
	}
}

func TestRuntimeMissingGuardStops(t *testing.T) {
	def := deliveryDefinition()
	def.Transitions[1].Guards = []string{"reviewed", "approved"}
	log := newLog(t)
	final, err := NewRuntime(def, log, NewFakeAgent(happySteps()), NewFakeEvaluator(nil)).RunUntilStop(dsl.Budget{MaxTurns: 5})
	if err != nil || final != "stopped" {
		t.Fatalf("RunUntilStop = %q, %v", final, err)
	}
	if last := haltedBy(t, readLog(t, log)); last.Payload["reason"] != "Missing guards for transition: approved, reviewed" {
		t.Errorf("rejection = %+v", last)
	}
}

func TestRuntimeHookBlocksTransition(t *testing.T) {
	hooks := NewHookBus()
	hooks.Register(StageBeforeStateTransition, func(c HookContext) HookDecision {
		if c.Event == "evaluator_passed" {
			return NewHookDecision(HookBlock, "missing bound evidence")
		}
		return NewHookDecision(HookAllow)
	})
	log := newLog(t)
	rt := NewRuntime(deliveryDefinition(), log, NewFakeAgent(happySteps()), NewFakeEvaluator([]dsl.Verdict{{Status: "PASS", Details: "claimed pass"}}))
	rt.Hooks = hooks
	final, err := rt.RunUntilStop(dsl.Budget{MaxTurns: 5})
	if err != nil || final != "stopped" {
		t.Fatalf("RunUntilStop = %q, %v", final, err)
	}
	last := haltedBy(t, readLog(t, log))
	if last.EventType != "transition_blocked" || !reflect.DeepEqual(last.Payload["messages"], []any{"missing bound evidence"}) {
		t.Errorf("last event = %+v", last)
	}
}

func TestRuntimeBlockReasonSurvivesNoProgressBudgetOfOne(t *testing.T) {
	hooks := NewHookBus()
	hooks.Register(StageBeforeStateTransition, func(HookContext) HookDecision { return NewHookDecision(HookBlock, "blocked") })
	log := newLog(t)
	rt := NewRuntime(deliveryDefinition(), log, NewFakeAgent(map[string][]dsl.AgentStep{"backlog": {{Event: "feature_selected"}}}), NewFakeEvaluator(nil))
	rt.Hooks = hooks
	if final, err := rt.RunUntilStop(dsl.Budget{MaxTurns: 1, MaxNoProgressTurns: 1}); err != nil || final != "stopped" {
		t.Fatalf("RunUntilStop = %q, %v", final, err)
	}
	if last := haltedBy(t, readLog(t, log)); last.EventType != "transition_blocked" {
		t.Errorf("halted by %s", last.EventType)
	}
}

func TestRuntimeBeforeTurnPauseStops(t *testing.T) {
	hooks := NewHookBus()
	hooks.Register(StageBeforeTurn, func(c HookContext) HookDecision {
		if c.State == "building" {
			return NewHookDecision(HookPause, "operator pause")
		}
		return NewHookDecision(HookSteer, "keep going")
	})
	log := newLog(t)
	rt := NewRuntime(deliveryDefinition(), log, NewFakeAgent(happySteps()), NewFakeEvaluator(nil))
	rt.Hooks = hooks
	if final, err := rt.RunUntilStop(dsl.Budget{MaxTurns: 5}); err != nil || final != "stopped" {
		t.Fatalf("RunUntilStop = %q, %v", final, err)
	}
	ev := readLog(t, log)
	if got := types(ev); !slices.Equal(got, []string{"loop_started", "state_transitioned", "transition_blocked", "loop_outcome"}) {
		t.Errorf("events = %v", got)
	}
}

func TestRuntimeEvaluatorOutOfVerdicts(t *testing.T) {
	rt := NewRuntime(deliveryDefinition(), newLog(t), NewFakeAgent(happySteps()), NewFakeEvaluator(nil))
	if _, err := rt.RunUntilStop(dsl.Budget{MaxTurns: 5}); !errors.Is(err, ErrNoVerdicts) {
		t.Fatalf("err = %v, want ErrNoVerdicts", err)
	}
}

func TestRuntimeNeedsStopStateToStop(t *testing.T) {
	def := dsl.MustDefinitionFromJSON(`{"id": "x", "initial_state": "a", "states": ["a", "done"], "events": ["go"],
		"transitions": [{"from": "a", "event": "go", "to": "done"}]}`)
	rt := NewRuntime(def, newLog(t), NewFakeAgent(nil), NewFakeEvaluator(nil))
	if _, err := rt.RunUntilStop(dsl.Budget{MaxTurns: 1, MaxNoProgressTurns: 1}); !errors.Is(err, ErrNoStopState) {
		t.Fatalf("err = %v, want ErrNoStopState", err)
	}
}

// The FakeAgent must not consume the Spec's own scripts: simulate twice gives the
// same run.
func TestFakeAgentCopiesScripts(t *testing.T) {
	steps := happySteps()
	a := NewFakeAgent(steps)
	a.NextSteps("backlog")
	if len(a.NextSteps("backlog")) != 0 || len(steps["backlog"]) != 1 {
		t.Errorf("agent consumed the caller's script: %v", steps)
	}
}

func seed(t *testing.T, log *session.Log, events ...eventlog.Event) {
	t.Helper()
	err := log.Update(func(tx session.Tx) error {
		for _, e := range events {
			if _, err := tx.Append(e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestHookBus(t *testing.T) {
	ctx := HookContext{State: "building"}
	if d := NewHookBus().Fire(StageBeforeTurn, ctx); !d.Allowed() || len(d.Messages) != 0 || d.Verdict != HookAllow {
		t.Errorf("empty bus = %+v", d)
	}
	var nilBus *HookBus
	if d := nilBus.Fire(StageBeforeTurn, ctx); !d.Allowed() {
		t.Errorf("nil bus = %+v", d)
	}

	b := NewHookBus()
	b.Register(StageBeforeTurn, func(HookContext) HookDecision { return NewHookDecision(HookAllow, "look at NEXT.md") })
	b.Register(StageBeforeTurn, func(HookContext) HookDecision { return NewHookDecision(HookAllow, "budget: 2 turns left") })
	if d := b.Fire(StageBeforeTurn, ctx); !d.Allowed() || !slices.Equal(d.Messages, []string{"look at NEXT.md", "budget: 2 turns left"}) {
		t.Errorf("messages = %+v", d)
	}
	if d := b.Fire(StageBeforeStateTransition, ctx); !d.Allowed() || len(d.Messages) != 0 {
		t.Errorf("stages must be separate: %+v", d)
	}

	cases := []struct {
		verdicts []HookVerdict
		want     HookVerdict
	}{
		{[]HookVerdict{HookAllow, HookSteer}, HookSteer},
		{[]HookVerdict{HookSteer, HookRedact}, HookSteer}, // only a stopping verdict replaces a non-allow one
		{[]HookVerdict{HookSteer, HookBlock}, HookBlock},
		{[]HookVerdict{HookBlock, HookSteer}, HookBlock},
		{[]HookVerdict{HookPause, HookReplan}, HookReplan}, // the last stopping verdict wins
		{[]HookVerdict{HookRedact, HookAllow}, HookRedact},
	}
	for _, c := range cases {
		b := NewHookBus()
		for _, v := range c.verdicts {
			b.Register("s", func(HookContext) HookDecision { return NewHookDecision(v, string(v)) })
		}
		d := b.Fire("s", ctx)
		if d.Verdict != c.want {
			t.Errorf("%v combine to %s, want %s", c.verdicts, d.Verdict, c.want)
		}
		stopping := c.want == HookBlock || c.want == HookPause || c.want == HookReplan
		if d.Allowed() == stopping {
			t.Errorf("%s: Allowed() = %v", c.want, d.Allowed())
		}
	}

	b = NewHookBus()
	b.Register("s", func(HookContext) HookDecision {
		return HookDecision{Verdict: HookRedact, Messages: []string{"secret removed"}, Patch: map[string]any{"content": "[REDACTED]"}}
	})
	if d := b.Fire("s", ctx); d.Patch["content"] != "[REDACTED]" || !d.Allowed() {
		t.Errorf("redact = %+v", d)
	}
}

func TestParseVerdict(t *testing.T) {
	v, err := ParseVerdict("PASS\nEvidence matched every criterion.")
	if err != nil || v.Status != "PASS" || v.Details != "Evidence matched every criterion." {
		t.Errorf("PASS = %+v, %v", v, err)
	}
	v, err = ParseVerdict("  NEEDS_WORK  \r\n- Screenshot missing\r\n")
	if err != nil || v.Status != "NEEDS_WORK" || v.Details != "- Screenshot missing" {
		t.Errorf("NEEDS_WORK = %+v, %v", v, err)
	}
	for _, bad := range []string{"looks fine", "", "pass\nlowercase", "\nPASS"} {
		if _, err := ParseVerdict(bad); err == nil || err.Error() != "verdict must start with PASS or NEEDS_WORK" {
			t.Errorf("ParseVerdict(%q) err = %v", bad, err)
		}
	}
}

func TestFakeEvaluatorInOrder(t *testing.T) {
	e := NewFakeEvaluator([]dsl.Verdict{{Status: "NEEDS_WORK", Details: "- first"}, {Status: "PASS", Details: "all good"}})
	for _, want := range []string{"NEEDS_WORK", "PASS"} {
		if v, err := e.Evaluate(nil); err != nil || v.Status != want {
			t.Fatalf("Evaluate = %+v, %v; want %s", v, err, want)
		}
	}
	if _, err := e.Evaluate(nil); !errors.Is(err, ErrNoVerdicts) {
		t.Errorf("err = %v", err)
	}
}
