package hooks_test

import (
	"path/filepath"
	"testing"

	"github.com/hook-loop/hook-loop/adapters/registry/hooks"
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
	home, codexHome, piDir := t.TempDir(), t.TempDir(), t.TempDir()
	env := map[string]string{"CODEX_HOME": codexHome, "PI_CODING_AGENT_DIR": piDir}
	getenv := func(k string) string { return env[k] }
	eng := &engine.Engine{Spec: spec, Root: root, Home: home, OwnedPaths: hooks.OwnedPaths(hooks.All(), home, getenv)}
	write := func(p string) loop.HookEvent {
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		return loop.HookEvent{Name: loop.EventPreToolUse, ToolName: "Write", Cwd: root, TargetPaths: []string{p}}
	}
	// Folders are owned as folders: the plugin folder runs every file in it.
	for _, rel := range []string{".codex/hooks.json", ".codex/config.toml", ".codex/other.toml", ".claude/settings.json",
		".claude/settings.local.json", ".opencode/plugins/hook_loop.js", ".opencode/plugins/mine.js", ".pi/extensions/hook_loop.ts",
		filepath.Join(home, ".claude", "settings.json"), filepath.Join(codexHome, "hooks.json"),
		filepath.Join(piDir, "extensions", "hook_loop.ts"), filepath.Join(home, ".config", "opencode", "plugins", "hook_loop.js"),
		// Skills and commands run !`shell` lines and, with agents, declare hooks.
		".claude/agents/reviewer.md", ".claude/skills/x/SKILL.md", ".claude/commands/c.md",
		filepath.Join(home, ".claude", "skills", "x", "SKILL.md"), filepath.Join(home, ".claude", "agents", "a.md"),
		// The scripts the settings' hook commands run.
		".claude/hooks/check.sh", filepath.Join(home, ".claude", "hooks", "notify.py")} {
		ev := write(rel)
		if c := eng.CheckTool(&ev, "a"); !c.Blocked || c.Rule != "loop_file" {
			t.Errorf("%s: %+v", rel, c)
		}
	}
	for _, rel := range []string{".claude/CLAUDE.md", ".opencode/package.json", "src/hooks.json", filepath.Join(home, ".codex", "hooks.json")} {
		ev := write(rel)
		if c := eng.CheckTool(&ev, "a"); c.Blocked {
			t.Errorf("%s blocked: %+v", rel, c)
		}
	}
}

// TestOwnedPathsCoverPluginLoaders: the files and folders that make opencode
// or pi load code at start (a plugin or extension folder, a config whose
// plugin or extension list names one anywhere), and Gemini CLI's and Qwen
// Code's extension folders (an extension declares hooks), are owned: code
// of the agent's loaded there would run where no hook sees it.
func TestOwnedPathsCoverPluginLoaders(t *testing.T) {
	root := t.TempDir()
	spec, _, err := loopdsl.Parse("hook-loop.json", []byte(`{"loop": {"id": "x", "initial_state": "a", "states": ["a", "done"], "events": ["go"],
		"transitions": [{"from": "a", "event": "go", "to": "done"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	home, piDir := t.TempDir(), t.TempDir()
	env := map[string]string{"PI_CODING_AGENT_DIR": piDir}
	getenv := func(k string) string { return env[k] }
	eng := &engine.Engine{Spec: spec, Root: root, Home: home, OwnedPaths: hooks.OwnedPaths(hooks.All(), home, getenv)}
	for _, p := range []string{"opencode.json", "opencode.jsonc", ".opencode/opencode.jsonc", ".pi/settings.json",
		filepath.Join(home, ".config", "opencode", "plugins", "evil.js"), filepath.Join(home, ".config", "opencode", "opencode.json"),
		filepath.Join(piDir, "extensions", "evil.ts"), filepath.Join(piDir, "settings.json"),
		filepath.Join(home, ".gemini", "extensions", "evil", "gemini-extension.json"), filepath.Join(home, ".qwen", "extensions", "evil", "qwen-extension.json"),
		filepath.Join(home, ".claude", "plugins", "cache", "m", "p", "1.0", "hooks", "hooks.json")} {
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		ev := loop.HookEvent{Name: loop.EventPreToolUse, ToolName: "Write", Cwd: root, TargetPaths: []string{p}}
		if c := eng.CheckTool(&ev, "a"); !c.Blocked || c.Rule != "loop_file" {
			t.Errorf("%s: %+v", p, c)
		}
	}
	for _, p := range []string{".opencode/package.json", "src/opencode.json.md", ".pi/notes.md"} {
		ev := loop.HookEvent{Name: loop.EventPreToolUse, ToolName: "Write", Cwd: root, TargetPaths: []string{filepath.Join(root, p)}}
		if c := eng.CheckTool(&ev, "a"); c.Blocked {
			t.Errorf("%s blocked: %+v", p, c)
		}
	}
}
