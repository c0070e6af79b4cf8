package sim_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/session"
	"github.com/hook-loop/hook-loop/loop/sim"
)

// ExampleRuntime is the Python original README's snippet in Go: a four-step delivery
// loop, a scripted agent and a PASSing evaluator reach "done" in three turns.
func ExampleRuntime() {
	dir, err := os.MkdirTemp("", "hook-loop-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	definition, err := dsl.DefinitionFromJSON([]byte(`{
		"id": "software_delivery",
		"initial_state": "backlog",
		"states": ["backlog", "building", "evidence_ready", "evaluating", "done", "stopped"],
		"events": ["feature_selected", "evidence_recorded", "review_requested", "evaluator_passed"],
		"transitions": [
			{"from": "backlog", "event": "feature_selected", "to": "building"},
			{"from": "building", "event": "evidence_recorded", "to": "evidence_ready"},
			{"from": "evidence_ready", "event": "review_requested", "to": "evaluating"},
			{"from": "evaluating", "event": "evaluator_passed", "to": "done", "guards": ["evidence_bound_to_criteria"]}
		]
	}`))
	if err != nil {
		panic(err)
	}

	runtime := sim.NewRuntime(
		definition,
		session.Open(filepath.Join(dir, "events.jsonl")),
		sim.NewFakeAgent(map[string][]dsl.AgentStep{
			"backlog":        {{Event: "feature_selected"}},
			"building":       {{Event: "evidence_recorded", Payload: map[string]any{"evidence_id": "e1"}}},
			"evidence_ready": {{Event: "review_requested"}},
		}),
		sim.NewFakeEvaluator([]dsl.Verdict{{Status: "PASS", Details: "evidence checked"}}),
	)

	final, err := runtime.RunUntilStop(dsl.Budget{MaxTurns: 3})
	if err != nil {
		panic(err)
	}
	fmt.Println(final)
	// Output: done
}
