package opencode

import (
	"encoding/json"
	"github.com/hook-loop/hook-loop/adapters/harness"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/loop"
	"github.com/tidwall/sjson"
)

// payloads is ../shared/harness/opencode/payloads relative to the repository root.
func payloads(t testing.TB) string {
	dir, _ := filepath.Abs(filepath.Join("..", "..", "..", "shared", "harness", "opencode", "payloads"))
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("real opencode payloads not found at %s (../shared is absent): skipping", dir)
	}
	return dir
}

// load reads a captured payload and adds what the plugin adds (directory), as the
// generated plugin sends {hook, directory, worktree, input, output}.
func load(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(payloads(t), name))
	if err != nil {
		t.Fatal(err)
	}
	b, _ = sjson.SetBytes(b, "directory", "/home/dev/probe/proj")
	return b
}

func decode(t *testing.T, event string, b []byte) loop.HookEvent {
	t.Helper()
	ev, err := New().Decode(event, b)
	if err != nil {
		t.Fatalf("decode %s: %v", event, err)
	}
	return ev
}

func TestDecodeEveryRealToolPayload(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(payloads(t), "hook.tool.execute.*.json"))
	if len(files) < 20 {
		t.Fatalf("expected the captured tool payloads, found %d", len(files))
	}
	for _, f := range files {
		name := filepath.Base(f)
		if strings.Contains(name, "mutation") {
			continue // not a hook payload: the probe's own before/after note
		}
		event := "tool.execute.before"
		want := loop.EventPreToolUse
		if strings.HasPrefix(name, "hook.tool.execute.after") {
			event, want = "tool.execute.after", loop.EventPostToolUse
		}
		ev := decode(t, event, load(t, name))
		if ev.Name != want || ev.NativeName != event || ev.Harness != "opencode" {
			t.Errorf("%s: name %q native %q harness %q", name, ev.Name, ev.NativeName, ev.Harness)
		}
		if ev.SessionID == "" || !strings.HasPrefix(ev.SessionID, "ses_") || ev.ToolUseID == "" {
			t.Errorf("%s: session %q call %q", name, ev.SessionID, ev.ToolUseID)
		}
		if ev.Cwd != "/home/dev/probe/proj" {
			t.Errorf("%s: cwd %q", name, ev.Cwd)
		}
		switch {
		case strings.Contains(name, "apply_patch"):
			if ev.ToolName != "apply_patch" || len(ev.TargetPaths) == 0 {
				t.Errorf("%s: tool %q paths %v", name, ev.ToolName, ev.TargetPaths)
			}
		case strings.Contains(name, ".write"):
			if ev.ToolName != "Write" || len(ev.TargetPaths) != 1 {
				t.Errorf("%s: tool %q paths %v", name, ev.ToolName, ev.TargetPaths)
			}
		case strings.Contains(name, ".edit"):
			if ev.ToolName != "Edit" || len(ev.TargetPaths) != 1 {
				t.Errorf("%s: tool %q paths %v", name, ev.ToolName, ev.TargetPaths)
			}
		default:
			if ev.ToolName != "Bash" || ev.Command == "" {
				t.Errorf("%s: tool %q command %q", name, ev.ToolName, ev.Command)
			}
		}
		if want == loop.EventPostToolUse && ev.Result == nil {
			t.Errorf("%s: no result", name)
		}
		if !json.Valid(ev.ToolInput) || !json.Valid(ev.Raw) {
			t.Errorf("%s: tool input or raw is not JSON", name)
		}
	}
}

func TestDecodeExitCodes(t *testing.T) {
	ok := decode(t, "tool.execute.after", load(t, "hook.tool.execute.after.json"))
	if ok.Result.ExitCode == nil || *ok.Result.ExitCode != 0 || ok.Result.Output != "hello\n" || ok.Command != "echo hello" {
		t.Fatalf("exit 0 payload: %+v command %q", ok.Result, ok.Command)
	}
	bad := decode(t, "tool.execute.after", load(t, "hook.tool.execute.after.exit3.json"))
	if bad.Result.ExitCode == nil || *bad.Result.ExitCode != 3 || bad.Result.Output != "out\nerr\n" {
		t.Fatalf("exit 3 payload: %+v", bad.Result)
	}
	// A write has no exit code: unknown, never 0.
	w := decode(t, "tool.execute.after", load(t, "hook.tool.execute.after.write.json"))
	if w.Result.ExitCode != nil {
		t.Fatalf("write result has exit code %d, want unknown", *w.Result.ExitCode)
	}
}

func TestDecodeTargetPaths(t *testing.T) {
	rel := decode(t, "tool.execute.before", load(t, "hook.tool.execute.before.write-relative-path.json"))
	if want := []string{"/home/dev/probe/proj/rel-created.txt"}; !reflect.DeepEqual(rel.TargetPaths, want) {
		t.Fatalf("relative filePath: %v, want %v", rel.TargetPaths, want)
	}
	combined := decode(t, "tool.execute.before", load(t, "hook.tool.execute.before.apply_patch-combined.json"))
	want := []string{"/home/dev/probe/proj/created.txt", "/home/dev/probe/proj/existing.txt", "/home/dev/probe/proj/todelete.txt",
		"/home/dev/probe/proj/tomove.txt", "/home/dev/probe/proj/moved/renamed.txt"}
	if !reflect.DeepEqual(combined.TargetPaths, want) {
		t.Fatalf("apply_patch paths: %v, want %v", combined.TargetPaths, want)
	}
	abs := decode(t, "tool.execute.before", load(t, "hook.tool.execute.before.apply_patch-absolute-path.json"))
	for _, p := range abs.TargetPaths {
		if strings.HasPrefix(p, "/home/dev/probe/proj//") || !filepath.IsAbs(p) {
			t.Fatalf("absolute patch path mangled: %v", abs.TargetPaths)
		}
	}
}

func TestDecodePromptAndStop(t *testing.T) {
	p := decode(t, "chat.message", load(t, "hook.chat.message.json"))
	if p.Name != loop.EventUserPromptSubmit || p.Prompt != `"say hi and run echo hello"` || p.SessionID == "" || p.TurnID == "" {
		t.Fatalf("chat.message: %+v", p)
	}
	tui := decode(t, "chat.message", load(t, "hook.chat.message.tui.json"))
	if tui.Prompt == "" {
		t.Fatal("TUI chat.message: empty prompt")
	}

	// The plugin's stop payload under `opencode run`: the awaited text.complete hook.
	tc := load(t, "hook.experimental.text.complete.json")
	tc, _ = sjson.SetBytes(tc, "sessionID", "ses_dd816a499ffes3ef3YmdigTs5H")
	tc, _ = sjson.SetBytes(tc, "lastAssistantMessage", "done")
	s := decode(t, "experimental.text.complete", tc)
	if s.Name != loop.EventStop || s.LastAssistantMessage != "done" || s.SessionID != "ses_dd816a499ffes3ef3YmdigTs5H" || s.TurnID == "" {
		t.Fatalf("text.complete stop: %+v", s)
	}
	// Without the plugin's field, output.text is the text.
	raw := decode(t, "experimental.text.complete", load(t, "hook.experimental.text.complete.json"))
	if raw.LastAssistantMessage != "done" || raw.SessionID == "" {
		t.Fatalf("bare text.complete: %+v", raw)
	}

	// Under serve/TUI: session.idle with the text the plugin remembered.
	idle := []byte(`{"hook":"session.idle","directory":"/p","sessionID":"ses_1","lastAssistantMessage":"all done","stopHookActive":true,` +
		`"event":` + string(mustRead(t, "event.session.idle.json", "event")) + `}`)
	i := decode(t, "", idle)
	if i.Name != loop.EventStop || i.NativeName != "session.idle" || i.SessionID != "ses_1" || i.LastAssistantMessage != "all done" || !i.StopHookActive {
		t.Fatalf("session.idle stop: %+v", i)
	}
	// The bare bus event still names the session.
	bare := decode(t, "session.idle", mustRead(t, "event.session.idle.json", ""))
	if bare.SessionID != "ses_dd816a499ffes3ef3YmdigTs5H" {
		t.Fatalf("bare session.idle session %q", bare.SessionID)
	}

	created := decode(t, "session.created", mustRead(t, "event.session.created.json", ""))
	if created.Name != loop.EventSessionStart || created.SessionID == "" {
		t.Fatalf("session.created: %+v", created)
	}
}

// mustRead returns a captured file, or one key of it.
func mustRead(t *testing.T, name, key string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(payloads(t), name))
	if err != nil {
		t.Fatal(err)
	}
	if key == "" {
		return b
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m[key]
}

// The prototype plugin's flat payloads (its tests' shapes) still decode.
func TestDecodePrototypeAliases(t *testing.T) {
	after := decode(t, "tool.execute.after", []byte(`{"session_id":"session-1","message_id":"message-1","cwd":"/repo","tool":"bash",`+
		`"input":{"command":"uv run pytest -q"},"output":{"exit_code":0,"stdout":"ok"}}`))
	if after.Name != loop.EventPostToolUse || after.SessionID != "session-1" || after.TurnID != "message-1" || after.Cwd != "/repo" ||
		after.ToolName != "Bash" || after.Command != "uv run pytest -q" || after.Result == nil || after.Result.ExitCode == nil ||
		*after.Result.ExitCode != 0 || after.Result.Stdout != "ok" {
		t.Fatalf("prototype PostToolUse: %+v %+v", after, after.Result)
	}
	before := decode(t, "tool.execute.before", []byte(`{"session_id":"s","cwd":"/repo","tool":"write","input":{"filePath":"a/b.txt"},"workspace":"/"}`))
	if before.ToolName != "Write" || !reflect.DeepEqual(before.TargetPaths, []string{"/repo/a/b.txt"}) {
		t.Fatalf("prototype PreToolUse: %+v", before)
	}
	nested := decode(t, "tool.execute.before", []byte(`{"session":{"id":"s2"},"tool":{"name":"todo_write","input":{"todos":[]}}}`))
	if nested.SessionID != "s2" || nested.ToolName != "TodoWrite" || string(nested.ToolInput) != `{"todos":[]}` {
		t.Fatalf("nested tool: %+v", nested)
	}
	msg := decode(t, "message.updated", []byte(`{"session_id":"s","cwd":"/repo","text":"verdict: PASS"}`))
	if msg.Name != loop.EventUserPromptSubmit || msg.Prompt != "verdict: PASS" {
		t.Fatalf("message.updated: %+v", msg)
	}
	idle := decode(t, "session.idle", []byte(`{"session_id":"s","cwd":"/repo","workspace":"/"}`))
	if idle.Name != loop.EventStop || idle.SessionID != "s" {
		t.Fatalf("prototype session.idle: %+v", idle)
	}
}

func TestCanonicalTool(t *testing.T) {
	cases := map[string]string{"bash": "Bash", "write": "Write", "edit": "Edit", "read": "Read", "grep": "Grep", "glob": "Glob",
		"todo_write": "TodoWrite", "todowrite": "TodoWrite", "apply_patch": "apply_patch", "webfetch": "WebFetch",
		"mcp_github_search": "mcp_github_search"}
	for in, want := range cases {
		if got := CanonicalTool(in); got != want {
			t.Errorf("CanonicalTool(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	cases := []struct{ event, input, want string }{
		{"tool.execute.before", "", "$: empty input"},
		{"tool.execute.before", "{", "$: invalid JSON"},
		{"tool.execute.before", "[1]", "$: expected an object, got an array"},
		{"", `{"sessionID":"s"}`, "$.hook: expected the opencode hook name"},
		{"tool.execute.nope", `{}`, `--event "tool.execute.nope": unknown opencode event`},
		{"tool.execute.before", `{"input":{"sessionID":"s","tool":7},"output":{"args":{}}}`, "$.input.tool: expected the opencode tool id"},
	}
	for _, c := range cases {
		_, err := New().Decode(c.event, []byte(c.input))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Decode(%q, %q) = %v, want an error containing %q", c.event, c.input, err, c.want)
		}
	}
}

func TestEncode(t *testing.T) {
	ev := loop.HookEvent{Name: loop.EventStop}
	cases := []struct {
		d    loop.Decision
		exit int
		want Answer
	}{
		{loop.Decision{Action: loop.Allow}, 0, Answer{PluginAnswer: harness.PluginAnswer{Action: "allow"}, Event: "Stop"}},
		{loop.Decision{Action: ""}, 0, Answer{PluginAnswer: harness.PluginAnswer{Action: "allow"}, Event: "Stop"}},
		{loop.Decision{Action: loop.Block, Reason: "run the tests first", StopBlocks: 2, MaxStopBlocks: 8, State: "building"}, 2,
			Answer{PluginAnswer: harness.PluginAnswer{Action: "block", Reason: "run the tests first", State: "building"}, Event: "Stop", StopBlocks: 2, MaxStopBlocks: 8}},
		{loop.Decision{Action: loop.Block}, 2, Answer{PluginAnswer: harness.PluginAnswer{Action: "block", Reason: "hook-loop refused this (no reason given)"}, Event: "Stop"}},
		{loop.Decision{Action: loop.Steer, Context: "note", SystemMessage: "for you", Outcome: "completed"}, 0,
			Answer{PluginAnswer: harness.PluginAnswer{Action: "steer", Context: "note", SystemMessage: "for you", Outcome: "completed"}, Event: "Stop"}},
	}
	for _, c := range cases {
		out := New().Encode(ev, c.d)
		if out.Exit != c.exit {
			t.Errorf("%+v: exit %d, want %d", c.d, out.Exit, c.exit)
		}
		if len(out.Stderr) != 0 {
			t.Errorf("%+v: stderr %q", c.d, out.Stderr)
		}
		lines := strings.Split(strings.TrimRight(string(out.Stdout), "\n"), "\n")
		if len(lines) != 1 {
			t.Fatalf("%+v: want one line, got %q", c.d, out.Stdout)
		}
		var got Answer
		dec := json.NewDecoder(strings.NewReader(lines[0]))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&got); err != nil {
			t.Fatalf("%+v: %v", c.d, err)
		}
		if got != c.want {
			t.Errorf("%+v: answer %+v, want %+v", c.d, got, c.want)
		}
	}
}

func TestDecodeSubagentCallUsesParentSession(t *testing.T) {
	ev := decode(t, "tool.execute.before", []byte(`{"hook":"tool.execute.before","directory":"/p","parentSessionID":"ses_parent",`+
		`"input":{"tool":"bash","sessionID":"ses_child","callID":"c"},"output":{"args":{"command":"go test ./..."}}}`))
	if ev.SessionID != "ses_parent" || ev.Command != "go test ./..." {
		t.Fatalf("subagent call: session %q command %q", ev.SessionID, ev.Command)
	}
}

// A bash command that is not a string is read for what it holds: a list as
// its argv, anything else as paths the call may write.
func TestDecodeOddCommand(t *testing.T) {
	in := func(cmd string) string {
		return `{"hook":"tool.execute.before","directory":"/p","input":{"tool":"bash","sessionID":"s","callID":"c"},"output":{"args":{"command":` + cmd + `}}}`
	}
	ev, err := New().Decode("tool.execute.before", []byte(in(`["rm","-f","hook-loop.json"]`)))
	if err != nil || ev.Command != "rm -f hook-loop.json" {
		t.Fatalf("list command: %q, %v", ev.Command, err)
	}
	ev, err = New().Decode("tool.execute.before", []byte(in(`{"x":"hook-loop.json"}`)))
	if err != nil || !slices.Contains(ev.TargetPaths, "/p/hook-loop.json") {
		t.Fatalf("object command: targets %v, %v", ev.TargetPaths, err)
	}
}
