package engine_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/loop"
	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/loop/session"
)

// --event-log events.jsonl at the project root: the agent may still write the
// project's files; the log and every file the event log keeps beside it stay
// refused.
func TestEventLogAtRootProtectsOnlyTheLog(t *testing.T) {
	f := newFixture(t, planLoop)
	logPath := filepath.Join(f.root, "events.jsonl")
	f.log = session.Open(logPath)
	f.eng = &engine.Engine{Spec: f.eng.Spec, Root: f.root, ConfigPath: f.eng.ConfigPath, LogPath: logPath}
	f.handle(prompt("go"))
	f.handle(loop.HookEvent{Name: loop.EventPostToolUse, ToolName: "Write", TargetPaths: []string{"PLAN.md"}})

	for _, p := range []string{"main.go", filepath.Join(f.root, "src", "a.go"), "README.md"} {
		if d := f.handle(pre("Write", "", p)); d.Action == loop.Block {
			t.Errorf("write to %s refused: %s", p, d.Reason)
		}
	}
	if d := f.handle(pre("Bash", "echo hi > notes.txt", "notes.txt")); d.Action == loop.Block {
		t.Errorf("shell write to notes.txt refused: %s", d.Reason)
	}

	entries, err := os.ReadDir(f.root)
	if err != nil {
		t.Fatal(err)
	}
	var logs []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "events.jsonl") {
			logs = append(logs, e.Name())
		}
	}
	if len(logs) < 2 {
		t.Fatalf("the event log left %v beside itself; want the log and its index or lock", logs)
	}
	for _, name := range append(logs, "events.jsonl.idx.tmp", "hook-loop.json") {
		if d := f.handle(pre("Write", "", name)); d.Action != loop.Block {
			t.Errorf("write to %s allowed; it is the loop's", name)
		}
	}
}
