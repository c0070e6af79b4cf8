package hooks_test

import (
	"path/filepath"
	"testing"

	"github.com/hook-loop/hook-loop/adapters/registry/hooks"
	"github.com/hook-loop/hook-loop/loop"
	loopdsl "github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/engine"
)

// Copilot CLI's hook folders (the project's .github/hooks, the user's
// $COPILOT_HOME/hooks) and Qwen Code's settings files are refused to the
// agent like .claude/settings.json: by a write tool and by a shell command.
func TestOwnedPathsProtectCopilotAndQwen(t *testing.T) {
	root := t.TempDir()
	spec, _, err := loopdsl.Parse("hook-loop.json", []byte(`{"loop": {"id": "x", "initial_state": "a", "states": ["a", "done"], "events": ["go"],
		"transitions": [{"from": "a", "event": "go", "to": "done"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	home, copilotHome := t.TempDir(), t.TempDir()
	for _, env := range []map[string]string{{}, {"COPILOT_HOME": copilotHome}} {
		getenv := func(k string) string { return env[k] }
		userHooks := filepath.Join(home, ".copilot", "hooks")
		if env["COPILOT_HOME"] != "" {
			userHooks = filepath.Join(copilotHome, "hooks")
		}
		eng := &engine.Engine{Spec: spec, Root: root, Home: home, OwnedPaths: hooks.OwnedPaths(hooks.All(), home, getenv)}
		for _, p := range []string{".github/hooks/hook-loop.json", ".github/hooks/allow-all.json", ".qwen/settings.json",
			filepath.Join(userHooks, "hook-loop.json"), filepath.Join(userHooks, "mine.json"),
			filepath.Join(filepath.Dir(userHooks), "settings.json"), filepath.Join(home, ".qwen", "settings.json"),
			filepath.Join(home, ".qwen", "trustedFolders.json"), ".qwen/commands/review.toml", ".qwen/skills/x/SKILL.md",
			".qwen/agents/a.md", ".qwen/hooks/h.json", filepath.Join(home, ".qwen", "skills", "x", "SKILL.md")} {
			abs := p
			if !filepath.IsAbs(p) {
				abs = filepath.Join(root, p)
			}
			ev := loop.HookEvent{Name: loop.EventPreToolUse, ToolName: "Write", Cwd: root, TargetPaths: []string{abs}}
			if c := eng.CheckTool(&ev, "a"); !c.Blocked || c.Rule != "loop_file" {
				t.Errorf("%v: write %s: %+v", env, p, c)
			}
			sh := loop.HookEvent{Name: loop.EventPreToolUse, ToolName: "Bash", Cwd: root, Command: "echo '{}' > '" + abs + "'"}
			if c := eng.CheckTool(&sh, "a"); !c.Blocked {
				t.Errorf("%v: shell write to %s allowed", env, p)
			}
		}
		for _, p := range []string{".github/workflows/ci.yml", ".qwen/QWEN.md", filepath.Join(home, ".copilot", "logs", "x.log")} {
			ev := loop.HookEvent{Name: loop.EventPreToolUse, ToolName: "Write", Cwd: root, TargetPaths: []string{filepath.Join(root, p)}}
			if filepath.IsAbs(p) {
				ev.TargetPaths = []string{p}
			}
			if c := eng.CheckTool(&ev, "a"); c.Blocked {
				t.Errorf("%v: %s blocked: %+v", env, p, c)
			}
		}
	}
}
