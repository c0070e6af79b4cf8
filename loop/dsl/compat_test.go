package dsl_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/session"
	"github.com/hook-loop/hook-loop/loop/sim"
)

// prototypeFinalState is what the Python original's `hook-loop simulate` prints for
// each reference file, worked out from its runtime (LoopRuntime.run_until_stop):
//
//   - The eight gallery loops script one agent step per non-terminal state along
//     a path to done, and their only guards are evidence_bound_to_criteria on
//     evaluating → done, which an evaluator PASS grants; builder_evaluator and
//     rework_loop first get NEEDS_WORK (evaluating → rework) and come round
//     again. Every run fits its max_turns, so all reach done.
//   - examples/software_delivery.json is the README's loop: done on turn 3.
//   - examples/plan_execute.json and hook-loop.json guard verifying → done with
//     plan_complete. Only a codex.event_map rule grants it (guard_satisfied); the
//     simulation grants nothing to agent steps, so StateMachine.apply raises
//     "Missing guards for transition: plan_complete" and the runtime stops in
//     stop_state: both end "stopped" (exit 0: stopped is terminal).
var prototypeFinalState = map[string]string{
	"gallery/agent_handoff.json":           "done",
	"gallery/approval_gate.json":           "done",
	"gallery/autoresearch_experiment.json": "done",
	"gallery/builder_evaluator.json":       "done",
	"gallery/multi_agent_fanout.json":      "done",
	"gallery/plan_execute.json":            "done",
	"gallery/rework_loop.json":             "done",
	"gallery/safety_guardrail.json":        "done",
	"examples/software_delivery.json":      "done",
	"examples/plan_execute.json":           "stopped",
	"hook-loop.json":                       "stopped",
}

// TestReferenceFilesLikeThePrototype loads, validates and simulates every
// reference file and compares the final state with the Python original's.
func TestReferenceFilesLikeThePrototype(t *testing.T) {
	dir, files := dsl.ReferenceFiles(t)
	for _, rel := range files {
		t.Run(rel, func(t *testing.T) {
			want, ok := prototypeFinalState[rel]
			if !ok {
				t.Fatalf("new reference file %s: work out the prototype's final state and add it to prototypeFinalState", rel)
			}
			spec, ds, err := dsl.Load(filepath.Join(dir, rel))
			if err != nil {
				t.Fatalf("Load: %v\n%s", err, dsl.DescribeDiagnostics(ds))
			}
			// The Python original's files are clean: a warning here means a false
			// alarm. (Its simulation-only examples have no event map: true, they
			// never move under a real harness.)
			if len(ds) != 0 && (len(ds) != 1 || ds[0].Code != dsl.CodeNoEventMap) {
				t.Errorf("unexpected diagnostics:\n%s", dsl.DescribeDiagnostics(ds))
			}
			log := session.Open(filepath.Join(t.TempDir(), "events.jsonl"))
			rt := sim.NewRuntime(spec.Definition, log, sim.NewFakeAgent(spec.Simulation.AgentSteps), sim.NewFakeEvaluator(spec.Simulation.Verdicts))
			final, err := rt.RunUntilStop(spec.Simulation.Budget)
			if err != nil {
				t.Fatalf("RunUntilStop: %v", err)
			}
			if final != want {
				t.Errorf("final state %s, the prototype gives %s", final, want)
			}
			if !spec.Definition.IsTerminal(final) {
				t.Errorf("final state %s is not terminal", final)
			}
			var events []eventlog.Event
			if err := log.Scan(nil, func(_ int, e eventlog.Event) error { events = append(events, e); return nil }); err != nil {
				t.Fatal(err)
			}
			// The engine records the outcome after the event that ended the run.
			outcome, last := events[len(events)-1], events[len(events)-2]
			switch want {
			case "done":
				if last.EventType != eventlog.TypeStateTransitioned || last.Payload["to"] != "done" {
					t.Errorf("last transition = %+v", last)
				}
				if outcome.EventType != eventlog.TypeLoopOutcome || outcome.Payload["outcome"] != "completed" {
					t.Errorf("outcome = %+v", outcome)
				}
			case "stopped":
				if last.EventType != eventlog.TypeTransitionRejected || last.Payload["reason"] != "Missing guards for transition: plan_complete" {
					t.Errorf("halting event = %+v", last)
				}
				if outcome.EventType != eventlog.TypeLoopOutcome || outcome.Payload["outcome"] != "stopped" {
					t.Errorf("outcome = %+v", outcome)
				}
			}
		})
	}
	for rel := range prototypeFinalState {
		if !slices.Contains(files, rel) {
			t.Errorf("reference file %s is missing from %s", rel, dir)
		}
	}
}
