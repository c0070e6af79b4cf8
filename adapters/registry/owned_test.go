package registry_test

import (
	"path/filepath"
	"testing"

	"github.com/hook-loop/hook-loop/adapters/registry"
	"github.com/hook-loop/hook-loop/loop"
	loopdsl "github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/engine"
)

// TestOwnedPathsProtectEveryHarnessConfig: the hook configurations the registry names
// as owned are the agent's to read, never to write, for every harness.
func TestOwnedPathsProtectEveryHarnessConfig(t *testing.T) {
	root := t.TempDir()
	spec, _, err := loopdsl.Parse("hook-loop.json", []byte(`{"loop": {"id": "x", "initial_state": "a", "states": ["a", "done"], "events": ["go"],
		"transitions": [{"from": "a", "event": "go", "to": "done"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	eng := &engine.Engine{Spec: spec, Root: root, OwnedPaths: registry.OwnedPaths(registry.All(), t.TempDir())}
	write := func(rel string) loop.HookEvent {
		return loop.HookEvent{Name: loop.EventPreToolUse, ToolName: "Write", Cwd: root, TargetPaths: []string{filepath.Join(root, rel)}}
	}
	for _, rel := range []string{".codex/hooks.json", ".codex/config.toml", ".claude/settings.json",
		".claude/settings.local.json", ".opencode/plugins/hook_loop.js", ".pi/extensions/hook_loop.ts"} {
		ev := write(rel)
		if c := eng.CheckTool(&ev, "a"); !c.Blocked || c.Rule != "loop_file" {
			t.Errorf("%s: %+v", rel, c)
		}
	}
	for _, rel := range []string{".claude/agents/reviewer.md", ".opencode/plugins/mine.js", "src/hooks.json"} {
		ev := write(rel)
		if c := eng.CheckTool(&ev, "a"); c.Blocked {
			t.Errorf("%s blocked: %+v", rel, c)
		}
	}
}
