package claude

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/engine"
)

// TestMCPWritePaths: an MCP tool's path arguments (top level, arrays, one
// level down) become the event's target paths, and the engine refuses the
// call when one is a loop file. The payload is the shape Claude Code sends
// for a filesystem MCP server's write_file.
func TestMCPWritePaths(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "hook-loop.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	payload := func(tool, input string) []byte {
		return []byte(`{"session_id":"s1","transcript_path":"/tmp/t.jsonl","cwd":"` + root + `","permission_mode":"default",
			"hook_event_name":"PreToolUse","tool_name":"` + tool + `","tool_input":` + input + `}`)
	}
	cases := []struct {
		tool, input string
		want        []string
	}{
		{"mcp__filesystem__write_file", `{"path":"hook-loop.json","content":"{}"}`, []string{"hook-loop.json"}},
		{"mcp__fs__move_file", `{"source":"a.txt","destination":"/tmp/b.txt"}`, []string{"a.txt", "/tmp/b.txt"}},
		{"mcp__fs__edit", `{"filePath":"x.go","edits":[{"file_path":"y.go"}],"options":{"target":"z.go"}}`, []string{"x.go", "y.go", "z.go"}},
		// Nested at any depth: a batch of writes nests its paths.
		{"mcp__fs__delete", `{"paths":["p1","p2"],"deep":{"deeper":{"path":"also-read"}}}`, []string{"also-read", "p1", "p2"}},
		{"mcp__search__query", `{"query":"hook-loop.json","limit":3}`, nil},
		{"Read", `{"file_path":"hook-loop.json"}`, nil},
	}
	for _, c := range cases {
		ev, err := New().Decode("PreToolUse", payload(c.tool, c.input))
		if err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		var want []string
		for _, p := range c.want {
			if !filepath.IsAbs(p) {
				p = filepath.Join(root, p)
			}
			want = append(want, p)
		}
		slices.Sort(ev.TargetPaths)
		slices.Sort(want)
		if !slices.Equal(ev.TargetPaths, want) {
			t.Errorf("%s %s: targets %q, want %q", c.tool, c.input, ev.TargetPaths, want)
		}
	}
	spec, _, err := dsl.Parse("hook-loop.json", []byte(`{"loop": {"id": "x", "initial_state": "a", "states": ["a", "done"], "events": ["go"],
		"transitions": [{"from": "a", "event": "go", "to": "done"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	eng := &engine.Engine{Spec: spec, Root: root, ConfigPath: filepath.Join(root, "hook-loop.json")}
	ev, err := New().Decode("PreToolUse", payload("mcp__server__write_file", `{"path":"hook-loop.json","content":""}`))
	if err != nil {
		t.Fatal(err)
	}
	if chk := eng.CheckTool(&ev, "a"); !chk.Blocked || chk.Rule != "loop_file" {
		t.Errorf("mcp__server__write_file of hook-loop.json: %+v", chk)
	}
}

// A tool input whose command or path field is not the shape expected is
// judged on what it holds, never let through: a list is the argv it is, and
// anything else has every string in it judged as a path written.
func TestOddToolInputsAreJudgedOnWhatTheyHold(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "hook-loop.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, _, err := dsl.Parse("hook-loop.json", []byte(`{"loop": {"id": "x", "initial_state": "a", "states": ["a", "done"], "events": ["go"],
		"transitions": [{"from": "a", "event": "go", "to": "done"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	eng := &engine.Engine{Spec: spec, Root: root, ConfigPath: filepath.Join(root, "hook-loop.json")}
	for _, c := range []struct {
		tool, input string
		blocked     bool
	}{
		{"Bash", `{"command":["rm","hook-loop.json"]}`, true},
		{"Bash", `{"command":{"argv":["rm","hook-loop.json"]}}`, true},
		{"Bash", `{"command":7}`, false},
		{"mcp__shell__exec", `{"command":["rm","-f","hook-loop.json"]}`, true},
		{"mcp__shell__exec", `{"command":"rm -f hook-loop.json"}`, true},
		{"mcp__shell__exec", `{"command":{"run":"x","file":"hook-loop.json"}}`, true},
		{"mcp__shell__exec", `{"command":{"argv":["sh","-c","rm -f hook-loop.json"]}}`, true},
		{"mcp__shell__exec", `{"command":{"cmd":"rm -f *.json","cwd":"."}}`, true},
		{"mcp__fs__write", `{"path":{"nested":{"p":"hook-loop.json"}}}`, true},
		{"mcp__shell__exec", `{"command":["ls","-la"]}`, false},
		{"Bash", `{"command":["go","test","./..."]}`, false},
	} {
		in := `{"session_id":"s1","transcript_path":"/tmp/t.jsonl","cwd":"` + root + `","permission_mode":"default",
			"hook_event_name":"PreToolUse","tool_name":"` + c.tool + `","tool_input":` + c.input + `}`
		ev, err := New().Decode("PreToolUse", []byte(in))
		if err != nil {
			t.Errorf("%s %s: not decoded (%v): a hook that cannot read a tool call must not let it through unjudged", c.tool, c.input, err)
			continue
		}
		if chk := eng.CheckTool(&ev, "a"); chk.Blocked != c.blocked {
			t.Errorf("%s %s: blocked=%v (%s), want %v", c.tool, c.input, chk.Blocked, chk.Reason, c.blocked)
		}
	}
}

// TestMCPShapesJudged: path arguments under the other names MCP servers
// give them (file, uri, dest, ...), file:// URIs, and commands under cmd or
// script are judged like the common ones.
func TestMCPShapesJudged(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".hook-loop"), 0o755); err != nil {
		t.Fatal(err)
	}
	spec, _, err := dsl.Parse("hook-loop.json", []byte(`{"loop": {"id": "x", "initial_state": "a", "states": ["a", "done"], "events": ["go"],
		"transitions": [{"from": "a", "event": "go", "to": "done"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	eng := &engine.Engine{Spec: spec, Root: root, ConfigPath: filepath.Join(root, "hook-loop.json"), LogPath: filepath.Join(root, ".hook-loop", "events.jsonl")}
	for _, c := range []struct {
		tool, input string
		blocked     bool
	}{
		{"mcp__fs__edit", `{"edits":[{"file":"hook-loop.json","old":"a","new":"b"}]}`, true},
		{"mcp__fs__write", `{"uri":"file://` + root + `/hook-loop.json","text":"{}"}`, true},
		{"mcp__fs__write", `{"uri":"file://` + root + `/hook%2Dloop.json","text":"{}"}`, true},
		{"mcp__fs__copy", `{"src":"a.txt","dest":".hook-loop/events.jsonl"}`, true},
		{"mcp__shell__run", `{"cmd":"rm .hook-loop/events.jsonl"}`, true},
		{"mcp__shell__run", `{"script":"echo > hook-loop.json"}`, true},
		{"mcp__shell__run", `{"cmd":"ls"}`, false},
		{"mcp__fs__write", `{"uri":"file://` + root + `/notes.md","text":"hook-loop.json"}`, false},
	} {
		ev, err := New().Decode("PreToolUse", []byte(`{"session_id":"s1","cwd":"`+root+`","hook_event_name":"PreToolUse","tool_name":"`+c.tool+`","tool_input":`+c.input+`}`))
		if err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		if chk := eng.CheckTool(&ev, "a"); chk.Blocked != c.blocked {
			t.Errorf("%s %s: blocked %v, want %v (%s)", c.tool, c.input, chk.Blocked, c.blocked, chk.Reason)
		}
	}
}

// TestMCPWorkingFoldersAreNotWrites: an MCP argument naming the folder a
// call works in (cwd, workdir, a directory of a tool that does not say it
// changes files) or a path of a tool that only reads is read, not written:
// judged as a write, the project root would be refused as a tree write of
// hook-loop.json. Sources, destinations and a writer's paths stay writes, a
// relative one judged from the working folder too, and a command runs there.
func TestMCPWorkingFoldersAreNotWrites(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	keys := filepath.Join(home, "keys")
	for _, d := range []string{filepath.Join(root, ".hook-loop"), keys} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "hook-loop.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, _, err := dsl.Parse("hook-loop.json", []byte(`{"loop": {"id": "x", "initial_state": "a", "states": ["a", "done"], "events": ["go"],
		"transitions": [{"from": "a", "event": "go", "to": "done"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	eng := &engine.Engine{Spec: spec, Root: root, Home: home, ConfigPath: filepath.Join(root, "hook-loop.json"),
		LogPath: filepath.Join(root, ".hook-loop", "events.jsonl"), SecretPaths: []string{keys + "/"}}
	for _, c := range []struct {
		tool, input string
		blocked     bool
	}{
		{"mcp__fs__list_directory", `{"path":"."}`, false},
		{"mcp__fs__directory_tree", `{"path":"` + root + `"}`, false},
		{"mcp__fs__read_text_file", `{"path":"hook-loop.json"}`, false},
		{"mcp__fs__search_files", `{"path":".","pattern":"*.go"}`, false},
		{"mcp__tests__run", `{"cwd":"` + root + `"}`, false},
		// A directory is where a tool works only when it reads or runs a
		// command: else it may be what the tool changes (list_and_purge
		// {"dir": ...}), and the root holds the loop file.
		{"mcp__tests__run", `{"directory":"."}`, true},
		{"mcp__tests__run", `{"command":"go test ./...","directory":"."}`, false},
		{"mcp__fs__list_directory", `{"directory":"."}`, false},
		{"mcp__shell__exec", `{"command":"ls","cwd":"` + root + `"}`, false},
		{"mcp__fs__write_file", `{"path":"notes.md","cwd":"` + root + `"}`, false},
		{"mcp__fs__move_file", `{"source":".hook-loop","destination":"/tmp/x"}`, true},
		{"mcp__fs__write_file", `{"path":"hook-loop.json","content":""}`, true},
		{"mcp__fs__write_file", `{"path":"events.jsonl","cwd":".hook-loop"}`, true},
		{"mcp__fs__delete_directory", `{"directory":".hook-loop"}`, true},
		{"mcp__fs__delete", `{"dir":"."}`, true},
		{"mcp__shell__exec", `{"command":"rm events.jsonl","cwd":".hook-loop"}`, true},
		{"mcp__shell__exec", `{"command":"rm events.jsonl","cwd":"src","workdir":".hook-loop"}`, true},
		{"mcp__tools__process", `{"path":"."}`, true},
		{"mcp__fs__list_directory", `{"path":"` + keys + `"}`, true},
		// A server's own spellings of a path (review of 2026-12-04), and a
		// project folder as where the call works, not a tree write.
		{"mcp__serena__replace_symbol_body", `{"relative_path":".hook-loop/events.jsonl","body":"x"}`, true},
		{"mcp__jetbrains__replace_text_in_file", `{"pathInProject":"hook-loop.json","projectPath":"` + root + `"}`, true},
		{"mcp__jetbrains__replace_text_in_file", `{"pathInProject":"notes.md","projectPath":"` + root + `"}`, false},
		{"mcp__jetbrains__execute_terminal_command", `{"command":"rm hook-loop.json","projectPath":"` + root + `"}`, true},
		{"mcp__x__move", `{"sourcePath":".hook-loop","destinationPath":"/tmp/x"}`, true},
		{"mcp__x__rename", `{"from":"hook-loop.json","to":"h.json"}`, true},
		{"mcp__x__make", `{"folderPath":".hook-loop/x"}`, true},
	} {
		ev, err := New().Decode("PreToolUse", []byte(`{"session_id":"s1","cwd":"`+root+`","hook_event_name":"PreToolUse","tool_name":"`+c.tool+`","tool_input":`+c.input+`}`))
		if err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		if chk := eng.CheckTool(&ev, "a"); chk.Blocked != c.blocked {
			t.Errorf("%s %s: blocked %v, want %v (%s)", c.tool, c.input, chk.Blocked, c.blocked, chk.Reason)
		}
	}
}

// Whatever the shape and depth of an MCP tool's input, a path or a command
// in it that changes the loop's files is refused (review of 2026-12-03): a
// path nested 60 deep (64 levels is as deep as a tool input may nest) under a path key, a list of lists, a command in a
// nested object or under a key of another case, a command nested in a step,
// a key spelled in another case, the git server's repo_path.
func TestMCPInputsOfAnyShapeAreJudged(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "hook-loop.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, _, err := dsl.Parse("hook-loop.json", []byte(`{"loop": {"id": "x", "initial_state": "a", "states": ["a", "done"], "events": ["go"],
		"transitions": [{"from": "a", "event": "go", "to": "done"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	eng := &engine.Engine{Spec: spec, Root: root, ConfigPath: filepath.Join(root, "hook-loop.json")}
	deep := func(n int, inner string) string {
		return strings.Repeat(`{"a":`, n) + inner + strings.Repeat(`}`, n)
	}
	for _, c := range []struct{ tool, input string }{
		{"mcp__x__wr", `{"path":` + deep(60, `"hook-loop.json"`) + `}`},
		{"mcp__x__wr", `{"paths":` + strings.Repeat("[", 60) + `"hook-loop.json"` + strings.Repeat("]", 60) + `}`},
		{"mcp__x__run", `{"command":` + deep(60, `"rm hook-loop.json"`) + `}`},
		{"mcp__x__run", `{"steps":[{"command":"rm hook-loop.json"}]}`},
		{"mcp__x__run", `{"Command":"rm hook-loop.json"}`},
		{"mcp__x__wr", `{"Path":"hook-loop.json"}`},
		{"mcp__x__wr", `{"target_file":"hook-loop.json"}`},
		{"mcp__git__git_checkout", `{"repo_path":"` + root + `","branches":["main"]}`},
		{"mcp__x__apply", `{"batches":[[{"edit":{"file":"hook-loop.json"}}]]}`},
		// Every top-level command key, not only the first found.
		{"mcp__x__run", `{"command":"ls","cmd":"rm -f hook-loop.json"}`},
		{"mcp__x__run", `{"command":"ls","COMMAND":"rm -f hook-loop.json"}`},
		{"mcp__x__run", `{"steps":[{"run":"make"},{"run":"rm -f hook-loop.json"}]}`},
	} {
		payload := `{"session_id":"s1","transcript_path":"/tmp/t.jsonl","cwd":"` + root + `","permission_mode":"default",` +
			`"hook_event_name":"PreToolUse","tool_name":"` + c.tool + `","tool_input":` + c.input + `}`
		ev, err := New().Decode("PreToolUse", []byte(payload))
		if err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		if chk := eng.CheckTool(&ev, "a"); !chk.Blocked {
			in := c.input
			if len(in) > 80 {
				in = in[:80] + "…"
			}
			t.Errorf("%s %s: allowed (command %q, targets %q)", c.tool, in, ev.Command, ev.TargetPaths)
		}
	}
}
