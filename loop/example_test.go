package loop_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/loop"
)

// ExampleRuntime is the prototype README's snippet in Go: a four-step delivery
// loop, a scripted agent and a PASSing evaluator reach "done" in three turns.
func ExampleRuntime() {
	dir, err := os.MkdirTemp("", "hook-loop-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	definition, err := loop.DefinitionFromJSON([]byte(`{
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

	runtime := loop.NewRuntime(
		definition,
		eventlog.Open(filepath.Join(dir, "events.jsonl")),
		loop.NewFakeAgent(map[string][]loop.AgentStep{
			"backlog":        {{Event: "feature_selected"}},
			"building":       {{Event: "evidence_recorded", Payload: map[string]any{"evidence_id": "e1"}}},
			"evidence_ready": {{Event: "review_requested"}},
		}),
		loop.NewFakeEvaluator([]loop.Verdict{{Status: "PASS", Details: "evidence checked"}}),
	)

	final, err := runtime.RunUntilStop(loop.Budget{MaxTurns: 3})
	if err != nil {
		panic(err)
	}
	fmt.Println(final)
	// Output: done
}
