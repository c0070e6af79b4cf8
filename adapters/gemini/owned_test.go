package gemini_test

import (
	"path/filepath"
	"testing"

	"github.com/hook-loop/hook-loop/adapters/gemini"
	"github.com/hook-loop/hook-loop/adapters/registry/hooks"
	"github.com/hook-loop/hook-loop/loop"
	loopdsl "github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/engine"
)

// The agent may not write Gemini CLI's settings (project and user) nor the
// user's trusted-folders file, through the registry every hook uses, however
// the write is made: a write_file call, an MCP tool or a shell redirection.
func TestGeminiSettingsAreProtected(t *testing.T) {
	root := t.TempDir()
	spec, _, err := loopdsl.Parse("hook-loop.json", []byte(`{"loop": {"id": "x", "initial_state": "a", "states": ["a", "done"], "events": ["go"],
		"transitions": [{"from": "a", "event": "go", "to": "done"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	home, geminiHome := t.TempDir(), t.TempDir()
	for _, tc := range []struct {
		env  map[string]string
		user string
	}{
		{nil, filepath.Join(home, ".gemini")},
		{map[string]string{"GEMINI_CLI_HOME": geminiHome}, filepath.Join(geminiHome, ".gemini")},
	} {
		getenv := func(k string) string { return tc.env[k] }
		eng := &engine.Engine{Spec: spec, Root: root, Home: home, OwnedPaths: hooks.OwnedPaths(hooks.All(), home, getenv)}
		for _, p := range []string{".gemini/settings.json", filepath.Join(tc.user, "settings.json"), filepath.Join(tc.user, "trustedFolders.json")} {
			if !filepath.IsAbs(p) {
				p = filepath.Join(root, p)
			}
			for _, call := range []string{`"write_file","tool_input":{"file_path":"` + p + `","content":"{}"}`,
				`"mcp_fs_write_file","tool_input":{"path":"` + p + `","content":"{}"}`} {
				raw := []byte(`{"session_id":"s","cwd":"` + root + `","hook_event_name":"BeforeTool","tool_name":` + call + `}`)
				ev, err := gemini.New().Decode("", raw)
				if err != nil {
					t.Fatal(err)
				}
				if c := eng.CheckTool(&ev, "a"); !c.Blocked {
					t.Errorf("%s to %s allowed: %+v", ev.ToolName, p, c)
				}
			}
			sh := loop.HookEvent{Name: loop.EventPreToolUse, ToolName: "Bash", Cwd: root, Command: "echo '{}' > '" + p + "'"}
			if c := eng.CheckTool(&sh, "a"); !c.Blocked {
				t.Errorf("a shell write to %s allowed: %+v", p, c)
			}
		}
		// The person's own commands in .gemini are not hook-loop's.
		ev := loop.HookEvent{Name: loop.EventPreToolUse, ToolName: "Write", Cwd: root, TargetPaths: []string{filepath.Join(root, ".gemini", "commands", "mine.toml")}}
		if c := eng.CheckTool(&ev, "a"); c.Blocked {
			t.Errorf(".gemini/commands blocked: %+v", c)
		}
	}
}
