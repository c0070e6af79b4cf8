package sim_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/loop"
	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/loop/session"
	"github.com/hook-loop/hook-loop/loop/sim"
)

// deliveryLoop is one loop two ways: its event map turns a harness's events into
// loop events, its simulation scripts the same loop events.
const deliveryLoop = `{
  "loop": {
    "id": "delivery",
    "initial_state": "backlog",
    "states": ["backlog", "building", "evidence_ready", "evaluating", "done", "stopped"],
    "events": ["feature_selected", "evidence_recorded", "review_requested", "evaluator_passed"],
    "transitions": [
      {"from": "backlog", "event": "feature_selected", "to": "building"},
      {"from": "building", "event": "evidence_recorded", "to": "evidence_ready"},
      {"from": "evidence_ready", "event": "review_requested", "to": "evaluating"},
      {"from": "evaluating", "event": "evaluator_passed", "to": "done", "guards": ["evidence_bound_to_criteria"]}
    ]
  },
  "simulation": {
    "agent_steps": {
      "backlog": [{"event": "feature_selected"}],
      "building": [{"event": "evidence_recorded", "payload": {"kind": "verification"}}],
      "evidence_ready": [{"event": "review_requested"}]
    },
    "verdicts": [{"status": "PASS", "details": "tests pass"}]
  },
  "codex": {"event_map": [
    {"codex_event": "UserPromptSubmit", "when": {"prompt_match": "^start"}, "emit": "feature_selected"},
    {"codex_event": "PostToolUse", "when": {"tool_name": "Bash", "command_match": "go test", "exit_code": 0},
     "record": {"event_type": "evidence_registered", "actor": "codex", "payload": {"kind": "verification"}},
     "emit": "evidence_recorded"},
    {"codex_event": "UserPromptSubmit", "when": {"prompt_match": "^review"}, "emit": "review_requested"},
    {"codex_event": "UserPromptSubmit", "when": {"prompt_match": "^PASS"}, "emit": "evaluator_passed"}
  ]}
}`

// harnessEvents are what a real agent's harness sends for the simulation's
// script: the same loop events, in the same order, through the event map.
func harnessEvents() []loop.HookEvent {
	prompt := func(p string) loop.HookEvent {
		return loop.HookEvent{Harness: "codex", Name: loop.EventUserPromptSubmit, SessionID: "s", Prompt: p}
	}
	return []loop.HookEvent{
		prompt("start the feature"),
		{Harness: "codex", Name: loop.EventPostToolUse, SessionID: "s", ToolName: "Bash",
			Command: "go test ./...", Result: &loop.ToolResult{ExitCode: loop.IntPtr(0)}},
		prompt("review please"),
		prompt("PASS: tests pass"),
	}
}

// machineLines are what the state machine decided, in order: each transition
// taken and each refused, as the log records them.
func machineLines(t *testing.T, log *session.Log) []string {
	t.Helper()
	var out []string
	err := log.Scan(nil, func(_ int, e eventlog.Event) error {
		switch e.EventType {
		case eventlog.TypeStateTransitioned:
			out = append(out, fmt.Sprintf("%v -%v-> %v", e.Payload["from"], e.Payload["event"], e.Payload["to"]))
		case eventlog.TypeTransitionRejected:
			out = append(out, fmt.Sprintf("%v -%v-> refused: %v", e.Payload["from"], e.Payload["event"], e.Payload["reason"]))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

type run struct {
	simFinal  string   // simulate's final state
	simLines  []string // what the machine decided in the simulation
	hookLines []string // ... and under the harness's hooks
	stop      loop.Decision
}

// runBoth simulates the loop and, on another log, sends harnessEvents and a
// Stop through Engine.Handle, with one engine for both.
func runBoth(t *testing.T, text string) run {
	t.Helper()
	dir := t.TempDir()
	spec, _, err := dsl.Parse(filepath.Join(dir, "hook-loop.json"), []byte(text))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	eng := &engine.Engine{Spec: spec, Root: dir}

	simLog := session.Open(filepath.Join(dir, "sim.jsonl"))
	rt := sim.NewRuntime(spec.Definition, simLog, sim.NewFakeAgent(spec.Simulation.AgentSteps), sim.NewFakeEvaluator(spec.Simulation.Verdicts))
	rt.Engine = eng
	final, err := rt.RunUntilStop(spec.Simulation.Budget)
	if err != nil {
		t.Fatalf("RunUntilStop: %v", err)
	}

	hookLog := session.Open(filepath.Join(dir, "hooks.jsonl"))
	var stop loop.Decision
	for _, ev := range append(harnessEvents(), loop.HookEvent{Harness: "codex", Name: loop.EventStop, SessionID: "s"}) {
		err := hookLog.Update(func(tx session.Tx) error {
			d, err := eng.Handle(context.Background(), tx, ev)
			stop = d
			return err
		})
		if err != nil {
			t.Fatalf("Handle %s: %v", ev.Name, err)
		}
	}
	return run{simFinal: final, simLines: machineLines(t, simLog), hookLines: machineLines(t, hookLog), stop: stop}
}

// TestSimulateAndHooksOneInterpreter: the same loop and the same loop events,
// once from the scripted simulation and once from a harness's hook events
// through Engine.Handle, give the same state sequence.
func TestSimulateAndHooksOneInterpreter(t *testing.T) {
	r := runBoth(t, deliveryLoop)
	want := []string{
		"backlog -feature_selected-> building",
		"building -evidence_recorded-> evidence_ready",
		"evidence_ready -review_requested-> evaluating",
		"evaluating -evaluator_passed-> done",
	}
	if !slices.Equal(r.simLines, want) {
		t.Errorf("simulation:\n%s\nwant\n%s", strings.Join(r.simLines, "\n"), strings.Join(want, "\n"))
	}
	if !slices.Equal(r.hookLines, r.simLines) {
		t.Errorf("hooks and simulation disagree:\nhooks:\n%s\nsimulation:\n%s", strings.Join(r.hookLines, "\n"), strings.Join(r.simLines, "\n"))
	}
	if r.simFinal != "done" || r.stop.Action != loop.Allow {
		t.Errorf("simulate ends in %s, the hook's stop is %s; want done and allow", r.simFinal, r.stop.Action)
	}
}

// TestLoopEditChangesSimulateAndHooksAlike: an edit to the loop changes what
// simulate reports and what a real hook decides the same way, because both go
// through the engine's one transition core.
func TestLoopEditChangesSimulateAndHooksAlike(t *testing.T) {
	cases := []struct {
		name, old, new string
		want           []string // what the machine decides, on both paths
	}{
		{
			name: "a guard nobody grants",
			old:  `"event": "review_requested", "to": "evaluating"}`,
			new:  `"event": "review_requested", "to": "evaluating", "guards": ["reviewed_by_person"]}`,
			want: []string{
				"backlog -feature_selected-> building",
				"building -evidence_recorded-> evidence_ready",
				"evidence_ready -review_requested-> refused: Missing guards for transition: reviewed_by_person",
			},
		},
		{
			name: "a review that sends the work back",
			old:  `"event": "review_requested", "to": "evaluating"}`,
			new:  `"event": "review_requested", "to": "building"}`,
			want: []string{
				"backlog -feature_selected-> building",
				"building -evidence_recorded-> evidence_ready",
				"evidence_ready -review_requested-> building",
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			edited := strings.Replace(deliveryLoop, c.old, c.new, 1)
			if edited == deliveryLoop {
				t.Fatalf("the edit %q does not apply", c.old)
			}
			r := runBoth(t, edited)
			if !slices.Equal(r.simLines, c.want) || !slices.Equal(r.hookLines, c.want) {
				t.Errorf("simulation:\n%s\nhooks:\n%s\nwant both:\n%s",
					strings.Join(r.simLines, "\n"), strings.Join(r.hookLines, "\n"), strings.Join(c.want, "\n"))
			}
			// Neither path reaches done any more: simulate halts in the stop
			// state, the hook refuses the stop.
			if r.simFinal != "stopped" || r.stop.Action != loop.Block {
				t.Errorf("simulate ends in %s, the hook's stop is %s; want stopped and block", r.simFinal, r.stop.Action)
			}
		})
	}
}
