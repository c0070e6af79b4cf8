package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hook-loop/hook-loop/gallery"
	"github.com/hook-loop/hook-loop/loop"
	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/loop/session"
	"github.com/hook-loop/hook-loop/testkit/benchgen"
)

// benchSessions is how many sessions the fixtures interleave: a project log
// collects several agents' sessions, and the engine must not pay for the others.
const benchSessions = 8

// BenchmarkHandle measures one hook event as a hook process runs it, minus
// process start-up: the event log's locked read-decide-append (index read, tail
// replay, append, index write) around Engine.Handle, on logs of 0, 10k and 100k
// events. scripts/bench.sh times the whole binary, 1M events included.
func BenchmarkHandle(b *testing.B) {
	data, err := gallery.Get("plan_execute")
	if err != nil {
		b.Fatal(err)
	}
	events := map[string]loop.HookEvent{
		"PreToolUse": {Name: loop.EventPreToolUse, ToolName: "Bash", ToolUseID: "call_1",
			ToolInput: json.RawMessage(`{"command":"go test ./..."}`), Command: "go test ./..."},
		"PostToolUse": {Name: loop.EventPostToolUse, ToolName: "Bash", ToolUseID: "call_1",
			ToolInput: json.RawMessage(`{"command":"go test ./..."}`), Command: "go test ./...",
			Result: &loop.ToolResult{Output: "ok\n", ExitCode: loop.IntPtr(0)}},
		"Stop": {Name: loop.EventStop, LastAssistantMessage: "done"},
	}
	for _, size := range []int{0, 10_000, 100_000} {
		for _, name := range []string{"PreToolUse", "PostToolUse", "Stop"} {
			b.Run(fmt.Sprintf("%s/events=%d", name, size), func(b *testing.B) {
				root := b.TempDir()
				cfg := filepath.Join(root, "hook-loop.json")
				spec, _, err := dsl.Parse(cfg, data)
				if err != nil {
					b.Fatal(err)
				}
				logPath := filepath.Join(root, ".hook-loop", "events.jsonl")
				if _, err := benchgen.Write(logPath, benchgen.Options{Events: size, Sessions: benchSessions, Focus: "focus"}); err != nil {
					b.Fatal(err)
				}
				eng := &engine.Engine{Spec: spec, Root: root, ConfigPath: cfg, LogPath: logPath}
				ev := events[name]
				ev.Harness, ev.NativeName, ev.SessionID, ev.TurnID, ev.Cwd = "codex", ev.Name, "focus", "turn-1", root
				log := session.Open(logPath)
				ctx := context.Background()
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					err := log.Update(func(tx session.Tx) error {
						_, err := eng.Handle(ctx, tx, ev)
						return err
					})
					if err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				if w := log.Warnings(); len(w) > 0 {
					b.Fatalf("the index was not used as is: %v", w)
				}
			})
		}
	}
}

// BenchmarkHandleNoWrite isolates the engine's decision (rules, tool policy with
// shell parsing, stop message) from the append: every iteration's events are
// discarded by failing the transaction, so the log stays the same size and only
// the lock and index read remain as I/O.
func BenchmarkHandleNoWrite(b *testing.B) {
	data, err := gallery.Get("plan_execute")
	if err != nil {
		b.Fatal(err)
	}
	root := b.TempDir()
	cfg := filepath.Join(root, "hook-loop.json")
	spec, _, err := dsl.Parse(cfg, data)
	if err != nil {
		b.Fatal(err)
	}
	logPath := filepath.Join(root, ".hook-loop", "events.jsonl")
	if _, err := benchgen.Write(logPath, benchgen.Options{Events: 1000, Sessions: benchSessions, Focus: "focus"}); err != nil {
		b.Fatal(err)
	}
	eng := &engine.Engine{Spec: spec, Root: root, ConfigPath: cfg, LogPath: logPath}
	log := session.Open(logPath)
	discard := fmt.Errorf("discard")
	for _, ev := range []loop.HookEvent{
		{Name: loop.EventPreToolUse, ToolName: "Bash", Command: "cd sub && FOO=1 sudo rm -rf build && go test ./..."},
		{Name: loop.EventPreToolUse, ToolName: "apply_patch", TargetPaths: []string{filepath.Join(root, "main.go")}},
		{Name: loop.EventStop, LastAssistantMessage: "done"},
	} {
		ev.Harness, ev.SessionID, ev.Cwd = "codex", "focus", root
		b.Run(ev.Name+"/"+ev.ToolName, func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				err := log.Update(func(tx session.Tx) error {
					if _, err := eng.Handle(ctx, tx, ev); err != nil {
						return err
					}
					return discard
				})
				if err != discard {
					b.Fatal(err)
				}
			}
		})
	}
}
