package hooks_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/adapters/registry/hooks"
	loopdsl "github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/engine"
)

// TestToolShapesCannotWriteLoopFiles: every harness's tools other than its
// plain shell command, decoded by its adapter and judged by the engine, are
// refused a write to the loop's own files, in the shapes the harnesses send:
// a shell tool's own directory argument (the command's relative paths are
// from there), Claude Code's and Qwen Code's monitor tools (a shell command
// too), Copilot CLI's write_bash (a line typed into a running shell, whose
// directory and program no hook showed: refused whatever it types), its
// apply_patch (freeform patch text) and its str_replace tools.
func TestToolShapesCannotWriteLoopFiles(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".hook-loop"), 0o755); err != nil {
		t.Fatal(err)
	}
	spec, _, err := loopdsl.Parse("hook-loop.json", []byte(`{"loop": {"id": "x", "initial_state": "a", "states": ["a", "done"], "events": ["go"],
		"transitions": [{"from": "a", "event": "go", "to": "done"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	eng := &engine.Engine{Spec: spec, Root: root, Home: home, ConfigPath: filepath.Join(root, "hook-loop.json"),
		LogPath: filepath.Join(root, ".hook-loop", "events.jsonl"), OwnedPaths: hooks.OwnedPaths(hooks.All(), home, nil)}
	adapters := hooks.Adapters(hooks.All())
	patch := `*** Begin Patch\n*** Add File: hook-loop.json\n+{}\n*** End Patch\n`
	for _, tt := range []struct {
		harness, event, payload string
		refused                 bool
	}{
		{"claude", "PreToolUse", `{"tool_name": "Monitor", "tool_input": {"command": "echo {} > hook-loop.json", "description": "watch"}}`, true},
		{"claude", "PreToolUse", `{"tool_name": "Monitor", "tool_input": {"command": "tail -f app.log", "description": "watch"}}`, false},
		{"qwen", "PreToolUse", `{"tool_name": "monitor", "tool_input": {"command": "echo {} > hook-loop.json"}}`, true},
		{"qwen", "PreToolUse", `{"tool_name": "run_shell_command", "tool_input": {"command": "echo > events.jsonl", "directory": "{P}/.hook-loop"}}`, true},
		{"qwen", "PreToolUse", `{"tool_name": "run_shell_command", "tool_input": {"command": "echo > events.jsonl", "directory": "{P}"}}`, false},
		{"gemini", "BeforeTool", `{"tool_name": "run_shell_command", "tool_input": {"command": "echo > events.jsonl", "dir_path": ".hook-loop"}}`, true},
		{"gemini", "BeforeTool", `{"tool_name": "run_shell_command", "tool_input": {"command": "echo > events.jsonl", "dir_path": "src"}}`, false},
		// An MCP tool's working folder is read, not written (the root is no
		// tree write of hook-loop.json); its command runs there.
		// Gemini CLI's mcp_server_tool cannot be split, so the server's words
		// count: an unknown one makes the paths writes (a false refusal kept
		// rather than trusting a name); its working folder is still no write.
		{"gemini", "BeforeTool", `{"tool_name": "mcp_fs_list_directory", "tool_input": {"path": "."}}`, true},
		{"gemini", "BeforeTool", `{"tool_name": "mcp_fs_list_directory", "tool_input": {"cwd": "."}}`, false},
		{"gemini", "BeforeTool", `{"tool_name": "mcp_tests_run", "tool_input": {"cwd": "{P}"}}`, false},
		{"gemini", "BeforeTool", `{"tool_name": "mcp_fs_move_file", "tool_input": {"source": ".hook-loop", "destination": "/tmp/x"}}`, true},
		{"gemini", "BeforeTool", `{"tool_name": "mcp_fs_write_file", "tool_input": {"path": "hook-loop.json", "content": ""}}`, true},
		{"gemini", "BeforeTool", `{"tool_name": "mcp_sh_exec", "tool_input": {"command": "rm events.jsonl", "cwd": ".hook-loop"}}`, true},
		{"opencode", "tool.execute.before", `{"input": {"tool": "bash", "sessionID": "s", "callID": "c"}, "output": {"args": {"command": "echo > events.jsonl", "workdir": "{P}/.hook-loop"}}}`, true},
		{"opencode", "tool.execute.before", `{"input": {"tool": "bash", "sessionID": "s", "callID": "c"}, "output": {"args": {"command": "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: events.jsonl\n+x\n*** End Patch\nEOF", "workdir": ".hook-loop"}}}`, true},
		{"opencode", "tool.execute.before", `{"input": {"tool": "bash", "sessionID": "s", "callID": "c"}, "output": {"args": {"command": "echo > events.jsonl", "workdir": "src"}}}`, false},
		{"copilot", "preToolUse", `{"toolName": "write_bash", "toolArgs": {"shellId": "1", "input": "echo > .hook-loop/events.jsonl\n"}}`, true},
		// Even a harmless line: the shell it goes to may be one started in
		// .hook-loop (bash "cd .hook-loop && bash", mode async).
		{"copilot", "preToolUse", `{"toolName": "write_bash", "toolArgs": {"shellId": "1", "input": "rm events.jsonl\n"}}`, true},
		{"copilot", "preToolUse", `{"toolName": "write_powershell", "toolArgs": {"shellId": "1", "input": "y\n"}}`, true},
		{"copilot", "preToolUse", `{"toolName": "bash", "toolArgs": {"command": "cd src && bash", "mode": "async"}}`, false},
		{"copilot", "preToolUse", `{"toolName": "apply_patch", "toolArgs": "` + patch + `"}`, true},
		{"copilot", "preToolUse", `{"toolName": "apply_patch", "toolArgs": {"input": "` + patch + `"}}`, true},
		{"copilot", "preToolUse", `{"toolName": "apply_patch", "toolArgs": "` + strings.Replace(patch, "hook-loop.json", "notes.txt", 1) + `"}`, false},
		{"copilot", "preToolUse", `{"toolName": "str_replace", "toolArgs": {"path": "{P}/hook-loop.json", "old_str": "a", "new_str": "b"}}`, true},
		{"copilot", "preToolUse", `{"toolName": "str_replace_editor", "toolArgs": {"command": "create", "path": "{P}/hook-loop.json", "file_text": "{}"}}`, true},
		{"copilot", "preToolUse", `{"toolName": "str_replace_editor", "toolArgs": {"command": "view", "path": "{P}/hook-loop.json"}}`, false},
		// A tool the adapter does not know (an MCP server's: opencode names
		// it server_tool, Copilot CLI server-tool; a pi extension's) is
		// judged on what its input holds, as Claude Code's mcp__ tools are
		// (review of 2026-12-04: its paths and commands went unjudged).
		{"opencode", "tool.execute.before", `{"input": {"tool": "fs_write_file", "sessionID": "s", "callID": "c"}, "output": {"args": {"path": "hook-loop.json", "content": "{}"}}}`, true},
		{"opencode", "tool.execute.before", `{"input": {"tool": "sh_exec", "sessionID": "s", "callID": "c"}, "output": {"args": {"command": "rm .hook-loop/events.jsonl"}}}`, true},
		{"opencode", "tool.execute.before", `{"input": {"tool": "sh_run", "sessionID": "s", "callID": "c"}, "output": {"args": {"command": "rm events.jsonl", "cwd": ".hook-loop"}}}`, true},
		{"opencode", "tool.execute.before", `{"input": {"tool": "sh_run", "sessionID": "s", "callID": "c"}, "output": {"args": {"command": "go test ./...", "cwd": "{P}"}}}`, false},
		{"opencode", "tool.execute.before", `{"input": {"tool": "weather_get", "sessionID": "s", "callID": "c"}, "output": {"args": {"city": "Oslo"}}}`, false},
		{"opencode", "tool.execute.before", `{"input": {"tool": "lsp", "sessionID": "s", "callID": "c"}, "output": {"args": {"operation": "hover", "filePath": "hook-loop.json", "line": 1, "character": 1}}}`, false},
		// An MCP server's tool whose id is one of opencode's own, or a
		// spelling of one the adapter also maps (server todo, tool write;
		// server apply, tool patch): judged on what it holds too (review of
		// 2026-12-04).
		{"opencode", "tool.execute.before", `{"input": {"tool": "todo_write", "sessionID": "s", "callID": "c"}, "output": {"args": {"path": "hook-loop.json", "content": "{}"}}}`, true},
		{"opencode", "tool.execute.before", `{"input": {"tool": "web_fetch", "sessionID": "s", "callID": "c"}, "output": {"args": {"url": "https://x", "output_path": ".hook-loop/events.jsonl"}}}`, true},
		{"opencode", "tool.execute.before", `{"input": {"tool": "apply_patch", "sessionID": "s", "callID": "c"}, "output": {"args": {"path": "hook-loop.json", "diff": "x"}}}`, true},
		{"opencode", "tool.execute.before", `{"input": {"tool": "todowrite", "sessionID": "s", "callID": "c"}, "output": {"args": {"todos": [{"content": "edit hook-loop.json", "status": "pending"}]}}}`, false},
		{"copilot", "preToolUse", `{"toolName": "fs-write_file", "toolArgs": {"path": "{P}/hook-loop.json", "content": "{}"}}`, true},
		{"copilot", "preToolUse", `{"toolName": "fs-write_file", "toolArgs": "{\"path\": \"hook-loop.json\"}"}`, true},
		{"copilot", "preToolUse", `{"toolName": "sh-exec", "toolArgs": {"command": "rm .hook-loop/events.jsonl"}}`, true},
		{"copilot", "preToolUse", `{"toolName": "powershell", "toolArgs": {"command": "rm .hook-loop/events.jsonl"}}`, true},
		{"copilot", "preToolUse", `{"toolName": "github-mcp-server-get_me", "toolArgs": {}}`, false},
		{"copilot", "preToolUse", `{"toolName": "grep", "toolArgs": {"pattern": "x", "path": "{P}"}}`, false},
		{"pi", "tool_call", `{"session_id": "s", "payload": {"toolName": "fs_write", "toolCallId": "c", "input": {"path": "hook-loop.json", "content": "{}"}}}`, true},
		{"pi", "tool_call", `{"session_id": "s", "payload": {"toolName": "run_script", "toolCallId": "c", "input": {"script": "rm .hook-loop/events.jsonl"}}}`, true},
		{"pi", "tool_call", `{"session_id": "s", "payload": {"toolName": "todo", "toolCallId": "c", "input": {"action": "add", "text": "x"}}}`, false},
		{"pi", "tool_call", `{"session_id": "s", "payload": {"toolName": "ls", "toolCallId": "c", "input": {"path": "."}}}`, false},
	} {
		payload := strings.ReplaceAll(tt.payload, "{P}", root)
		// Every harness's payload names the session's directory.
		payload = `{"cwd": "` + root + `", "directory": "` + root + `", ` + payload[1:]
		a, ok := adapters[tt.harness]
		if !ok {
			t.Fatalf("no adapter %s", tt.harness)
		}
		ev, err := a.Decode(tt.event, []byte(payload))
		if err != nil {
			t.Errorf("%s %s: %v", tt.harness, tt.payload, harness.InputError(tt.harness, tt.event, err))
			continue
		}
		if c := eng.CheckTool(&ev, "a"); c.Blocked != tt.refused {
			t.Errorf("%s %s: refused %v, want %v (%+v)", tt.harness, tt.payload, c.Blocked, tt.refused, c)
		}
	}
}

// TestFileToolPathSpellings: a file tool's path is judged as Claude Code's
// file tools read it (blanks trimmed, a leading ~/ the home directory), so a
// spelling the harness resolves to a loop file or a secret is refused.
func TestFileToolPathSpellings(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	keys := filepath.Join(home, "state", "keys")
	if err := os.MkdirAll(keys, 0o700); err != nil {
		t.Fatal(err)
	}
	spec, _, err := loopdsl.Parse("hook-loop.json", []byte(`{"loop": {"id": "x", "initial_state": "a", "states": ["a", "done"], "events": ["go"],
		"transitions": [{"from": "a", "event": "go", "to": "done"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	eng := &engine.Engine{Spec: spec, Root: root, Home: home, ConfigPath: filepath.Join(root, "hook-loop.json"),
		LogPath: filepath.Join(root, ".hook-loop", "events.jsonl"), OwnedPaths: hooks.OwnedPaths(hooks.All(), home, nil),
		SecretPaths: []string{keys + "/"}}
	a := hooks.Adapters(hooks.All())["claude"]
	for _, tt := range []struct {
		tool, path string
		refused    bool
	}{
		{"Write", "~/.claude/settings.json", true},
		{"Write", " ~/.claude/settings.json", true},
		{"Write", " " + root + "/hook-loop.json", true},
		{"Edit", root + "/.hook-loop/events.jsonl\t", true},
		{"Read", " " + keys + "/k.key", true},
		{"Write", "~/notes.txt", false},
		{"Read", " " + root + "/hook-loop.json", false},
	} {
		payload := `{"hook_event_name": "PreToolUse", "cwd": "` + root + `", "tool_name": "` + tt.tool + `", "tool_input": {"file_path": "` + strings.ReplaceAll(tt.path, "\t", `\t`) + `"}}`
		ev, err := a.Decode("", []byte(payload))
		if err != nil {
			t.Fatal(err)
		}
		if c := eng.CheckTool(&ev, "a"); c.Blocked != tt.refused {
			t.Errorf("%s %q: refused %v, want %v (%+v)", tt.tool, tt.path, c.Blocked, tt.refused, c)
		}
	}
}

// TestPatchDotDotThroughALink: Codex applies a patch with the system's
// calls, so "lnk/../settings.json", lnk a link to a folder inside .claude,
// is .claude/settings.json, not a settings.json beside the link.
func TestPatchDotDotThroughALink(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".claude", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, ".claude", "x"), filepath.Join(root, "lnk")); err != nil {
		t.Fatal(err)
	}
	spec, _, err := loopdsl.Parse("hook-loop.json", []byte(`{"loop": {"id": "x", "initial_state": "a", "states": ["a", "done"], "events": ["go"],
		"transitions": [{"from": "a", "event": "go", "to": "done"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	eng := &engine.Engine{Spec: spec, Root: root, ConfigPath: filepath.Join(root, "hook-loop.json"), OwnedPaths: hooks.OwnedPaths(hooks.All(), t.TempDir(), nil)}
	a := hooks.Adapters(hooks.All())["codex"]
	for file, refused := range map[string]bool{"lnk/../settings.json": true, "lnk/../notes.md": false} {
		in := `{"session_id":"s","cwd":"` + root + `","hook_event_name":"PreToolUse","tool_name":"apply_patch","tool_use_id":"c","tool_input":{"command":"*** Begin Patch\n*** Add File: ` + file + `\n+x\n*** End Patch\n"}}`
		ev, err := a.Decode("", []byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if c := eng.CheckTool(&ev, "a"); c.Blocked != refused {
			t.Errorf("%s: refused %v, want %v (%+v)", file, c.Blocked, refused, c)
		}
	}
}

// TestGeminiFilePathSpellings: Gemini CLI 0.61's file tools drop NUL bytes
// and a leading "@" when no file of the literal name exists, and replace
// looks a relative path that names no file up in the workspace by its base
// name (folders starting with a dot included): each file the tool may take
// the path for is judged.
func TestGeminiFilePathSpellings(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	for _, f := range []string{"hook-loop.json", ".gemini/settings.json", "src/app/config.json"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, f), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec, _, err := loopdsl.Parse("hook-loop.json", []byte(`{"loop": {"id": "x", "initial_state": "a", "states": ["a", "done"], "events": ["go"],
		"transitions": [{"from": "a", "event": "go", "to": "done"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	eng := &engine.Engine{Spec: spec, Root: root, Home: home, ConfigPath: filepath.Join(root, "hook-loop.json"),
		LogPath: filepath.Join(root, ".hook-loop", "events.jsonl"), OwnedPaths: hooks.OwnedPaths(hooks.All(), home, nil)}
	a := hooks.Adapters(hooks.All())["gemini"]
	for _, tt := range []struct {
		tool, path string
		refused    bool
	}{
		{"write_file", "@hook-loop.json", true},
		{"write_file", `hook-loop.json\u0000`, true},
		{"write_file", "@/hook-loop.json", true},
		{"replace", "@hook-loop.json", true},
		{"replace", "settings.json", true},
		{"replace", "gemini/settings.json", true},
		{"replace", "@" + root + "/hook-loop.json", true},
		{"write_file", "@notes.md", false},
		{"replace", "config.json", false},
		{"replace", "other/settings.md", false},
		{"write_file", "settings.json", false},
	} {
		payload := `{"hook_event_name": "BeforeTool", "cwd": "` + root + `", "tool_name": "` + tt.tool + `", "tool_input": {"file_path": "` + tt.path + `", "content": "{}", "old_string": "a", "new_string": "b"}}`
		ev, err := a.Decode("", []byte(payload))
		if err != nil {
			t.Fatal(err)
		}
		if c := eng.CheckTool(&ev, "a"); c.Blocked != tt.refused {
			t.Errorf("%s %q: refused %v, want %v (%+v, targets %q)", tt.tool, tt.path, c.Blocked, tt.refused, c, ev.TargetPaths)
		}
	}
}
