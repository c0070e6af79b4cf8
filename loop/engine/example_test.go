package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hook-loop/hook-loop/loop"
	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/loop/session"
)

// ExampleEngine_Handle gates a session with a two-state loop: the agent may not
// stop until a passing `go test` moves the loop to done. Each event is decided
// inside one transaction of the event log, as a hook process does.
func ExampleEngine_Handle() {
	root, err := os.MkdirTemp("", "hook-loop-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(root)
	spec, _, err := dsl.Parse("hook-loop.json", []byte(`{
		"loop": {"id": "tested", "initial_state": "coding", "states": ["coding", "done"],
			"events": ["tests_passed"],
			"transitions": [{"from": "coding", "event": "tests_passed", "to": "done"}]},
		"codex": {"event_map": [{"codex_event": "PostToolUse",
			"when": {"tool_name": "Bash", "command_match": "^go test", "exit_code": 0}, "emit": "tests_passed"}]}}`))
	if err != nil {
		panic(err)
	}
	logPath := filepath.Join(root, ".hook-loop", "events.jsonl")
	eng := &engine.Engine{Spec: spec, Root: root, LogPath: logPath}
	log := session.Open(logPath)
	handle := func(ev loop.HookEvent) {
		ev.Harness, ev.SessionID, ev.Cwd = "example", "s1", root
		err := log.Update(func(tx session.Tx) error {
			d, err := eng.Handle(context.Background(), tx, ev)
			fmt.Printf("%-11s → %-5s state %s\n", ev.Name, d.Action, d.State)
			return err
		})
		if err != nil {
			panic(err)
		}
	}
	handle(loop.HookEvent{Name: loop.EventStop})
	handle(loop.HookEvent{Name: loop.EventPostToolUse, ToolName: "Bash", Command: "go test ./...",
		Result: &loop.ToolResult{ExitCode: loop.IntPtr(0)}})
	handle(loop.HookEvent{Name: loop.EventStop})
	// Output:
	// Stop        → block state coding
	// PostToolUse → allow state done
	// Stop        → allow state done
}
