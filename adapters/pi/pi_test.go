package pi

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
	"github.com/tidwall/gjson"
)

// payloadDir holds the payloads captured from the real pi 0.73.1.
func payloadDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "harness", "pi", "payloads"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("pi payloads not found at %s (../shared is absent): skipping tests on captured payloads", dir)
	}
	return dir
}

// wrapped builds what the extension writes on pi-hook's stdin from a captured
// event file: the payload pi passed, plus session id and cwd from the handler ctx.
func wrapped(t *testing.T, file string, extra map[string]any) (string, []byte) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(payloadDir(t), file))
	if err != nil {
		t.Fatal(err)
	}
	rec := gjson.ParseBytes(raw)
	w := map[string]any{
		"event":      rec.Get("event").String(),
		"session_id": rec.Get("ctx.sessionId").String(),
		"cwd":        rec.Get("ctx.cwd").String(),
		"has_ui":     rec.Get("ctx.hasUI").Bool(),
		"payload":    json.RawMessage(rec.Get("payload").Raw),
	}
	for k, v := range extra {
		w[k] = v
	}
	b, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	return rec.Get("event").String(), b
}

func decodeFile(t *testing.T, file string) loop.HookEvent {
	t.Helper()
	name, in := wrapped(t, file, nil)
	ev, err := New().Decode(name, in)
	if err != nil {
		t.Fatalf("decode %s: %v", file, err)
	}
	if string(ev.Raw) != string(in) {
		t.Errorf("%s: Raw is not the input verbatim", file)
	}
	return ev
}

func TestDecodeCapturedToolCalls(t *testing.T) {
	const proj = "/home/dev/probe/proj"
	cases := []struct {
		file    string
		tool    string
		command string
		paths   []string
		id      string
	}{
		{"event.tool_call.bash.json", "Bash", "echo hello", nil, "call_mock_1"},
		{"event.tool_call.write.json", "Write", "", []string{proj + "/created.txt"}, "call_mock_1"},
		{"event.tool_call.edit.json", "Edit", "", []string{proj + "/created.txt"}, "call_mock_2"},
		{"event.tool_call.write-absolute-path.json", "Write", "", []string{proj + "/abs-created.txt"}, "call_mock_4"},
		{"event.tool_call.edit-missing-file.json", "Edit", "", []string{proj + "/missing.txt"}, "call_mock_5"},
		{"event.tool_call.read.json", "Read", "", nil, "call_mock_3"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			ev := decodeFile(t, c.file)
			if ev.Name != loop.EventPreToolUse || ev.NativeName != "tool_call" || ev.Harness != "pi" {
				t.Errorf("names: %q %q %q", ev.Name, ev.NativeName, ev.Harness)
			}
			if ev.ToolName != c.tool || ev.Command != c.command || ev.ToolUseID != c.id {
				t.Errorf("tool %q command %q id %q; want %q %q %q", ev.ToolName, ev.Command, ev.ToolUseID, c.tool, c.command, c.id)
			}
			if !reflect.DeepEqual(ev.TargetPaths, c.paths) {
				t.Errorf("TargetPaths %q, want %q", ev.TargetPaths, c.paths)
			}
			if ev.SessionID == "" || ev.Cwd != proj {
				t.Errorf("session %q cwd %q", ev.SessionID, ev.Cwd)
			}
			if !gjson.ValidBytes(ev.ToolInput) || !gjson.ParseBytes(ev.ToolInput).IsObject() {
				t.Errorf("ToolInput %s", ev.ToolInput)
			}
		})
	}
}

func TestDecodeCapturedToolResultsExitCodes(t *testing.T) {
	zero, three := 0, 3
	cases := []struct {
		file   string
		tool   string
		exit   *int
		output string
	}{
		{"event.tool_result.bash.json", "Bash", &zero, "hello\n"},
		{"event.tool_result.bash-exit3.json", "Bash", &three, "out\nerr\n\n\nCommand exited with code 3"},
		{"event.tool_result.write.json", "Write", &zero, "Successfully wrote 18 bytes to created.txt"},
		{"event.tool_result.edit.json", "Edit", &zero, ""},
		// a failed file tool has no exit code: unknown, so exit_code rules cannot match
		{"event.tool_result.edit-missing-file.json", "Edit", nil, "Could not edit file: missing.txt. Error code: ENOENT."},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			ev := decodeFile(t, c.file)
			if ev.Name != loop.EventPostToolUse || ev.ToolName != c.tool || ev.Result == nil {
				t.Fatalf("got %q %q result %v", ev.Name, ev.ToolName, ev.Result)
			}
			got := ev.Result.ExitCode
			if (got == nil) != (c.exit == nil) || got != nil && *got != *c.exit {
				t.Errorf("exit code %v, want %v", deref(got), deref(c.exit))
			}
			if c.output != "" && ev.Result.Output != c.output {
				t.Errorf("output %q, want %q", ev.Result.Output, c.output)
			}
		})
	}
}

func deref(p *int) any {
	if p == nil {
		return "unknown"
	}
	return *p
}

func TestExitCodeUnknownWhenBashFailedWithoutTrailer(t *testing.T) {
	in := `{"event":"tool_result","session_id":"s","cwd":"/p","payload":{"type":"tool_result","toolName":"bash","toolCallId":"c","input":{"command":"sleep 99"},"content":[{"type":"text","text":"Command timed out after 2 seconds"}],"isError":true}}`
	ev, err := New().Decode("tool_result", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if ev.Result.ExitCode != nil {
		t.Errorf("exit code %d, want unknown", *ev.Result.ExitCode)
	}
	// A trailer only counts at the very end: an echoed line earlier is output.
	in = strings.Replace(in, `Command timed out after 2 seconds`, `Command exited with code 0\nthen it failed`, 1)
	ev, err = New().Decode("tool_result", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if ev.Result.ExitCode != nil {
		t.Errorf("exit code %d from a line that is not the trailer, want unknown", *ev.Result.ExitCode)
	}
}

func TestDecodeCapturedPromptStopAndSession(t *testing.T) {
	ev := decodeFile(t, "event.input.json")
	if ev.Name != loop.EventUserPromptSubmit || ev.Prompt != "run echo hello" {
		t.Errorf("input: %q %q", ev.Name, ev.Prompt)
	}
	ev = decodeFile(t, "event.message_end.assistant.final.json")
	if ev.Name != loop.EventStop || ev.LastAssistantMessage != "done" || ev.StopHookActive {
		t.Errorf("final message_end: %q %q %v", ev.Name, ev.LastAssistantMessage, ev.StopHookActive)
	}
	ev = decodeFile(t, "event.session_start.json")
	if ev.Name != loop.EventSessionStart || ev.Source != "startup" || ev.SessionID != "01a22816-6164-7240-99f0-3deb8ac0595f" {
		t.Errorf("session_start: %q %q %q", ev.Name, ev.Source, ev.SessionID)
	}
	ev = decodeFile(t, "event.session_shutdown.json")
	if ev.Name != loop.EventSessionEnd {
		t.Errorf("session_shutdown: %q", ev.Name)
	}

	name, in := wrapped(t, "event.message_end.assistant.final.json", map[string]any{"stop_hook_active": true})
	ev, err := New().Decode(name, in)
	if err != nil || !ev.StopHookActive {
		t.Errorf("stop_hook_active not read: %v %v", ev.StopHookActive, err)
	}
}

// The hook-stdin files are what a spawned hook process really got from pi.
func TestDecodeWhatTheSpawnedHookReceived(t *testing.T) {
	for _, f := range []string{"hook-stdin.tool_call.json", "hook-stdin.tool_result.json", "hook-stdin.session_start.json"} {
		raw, err := os.ReadFile(filepath.Join(payloadDir(t), f))
		if err != nil {
			t.Fatal(err)
		}
		rec := gjson.ParseBytes(raw).Get("received")
		event := rec.Get("argv.1").String()
		ev, err := New().Decode(event, []byte(rec.Get("stdin").Raw))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if ev.SessionID != rec.Get("stdin.session_id").String() || ev.NativeName != event {
			t.Errorf("%s: session %q event %q", f, ev.SessionID, ev.NativeName)
		}
	}
	// a user message_end is not a stop: the extension never sends one, and pi-hook says so
	raw, _ := os.ReadFile(filepath.Join(payloadDir(t), "hook-stdin.message_end.json"))
	_, err := New().Decode("message_end", []byte(gjson.GetBytes(raw, "received.stdin").Raw))
	if err == nil || !strings.Contains(err.Error(), "$.payload.message.role") {
		t.Errorf("user message_end: err %v", err)
	}
}

func TestResolveLikePi(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home directory")
	}
	cases := map[string]string{
		"hook-loop.json":          "/p r/hook-loop.json",
		"./sub/../hook-loop.json": "/p r/hook-loop.json",
		"@hook-loop.json":         "/p r/hook-loop.json", // pi drops a leading @
		"/etc/x":                  "/etc/x",
		"~/.pi/agent/x.ts":        filepath.Join(home, ".pi/agent/x.ts"),
		"a\u00a0b.txt":            "/p r/a b.txt",
	}
	for in, want := range cases {
		if got := resolve("/p r", in); got != want {
			t.Errorf("resolve(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDecodeErrorsNameThePath(t *testing.T) {
	cases := []struct {
		event, in, want string
	}{
		{"tool_call", `not json`, "expected one JSON object"},
		{"tool_call", `[1]`, "expected a JSON object, got an array"},
		{"", `{"session_id":"s","cwd":"/p","payload":{}}`, "$.event: missing"},
		{"tool_call", `{"event":"input","session_id":"s","cwd":"/p","payload":{}}`, `$.event: "input" does not match --event "tool_call"`},
		{"agent_start", `{"session_id":"s","cwd":"/p","payload":{}}`, `event "agent_start": expected one of`},
		{"input", `{"cwd":"/p","payload":{"text":"x"}}`, "$.session_id: missing"},
		{"input", `{"session_id":"s","cwd":"rel","payload":{"text":"x"}}`, "$.cwd: expected an absolute path"},
		{"input", `{"session_id":"s","cwd":"/p","payload":"x"}`, "$.payload: expected the input event object, got a string"},
		{"input", `{"session_id":"s","cwd":"/p","payload":{"text":3}}`, "$.payload.text: expected the prompt string, got a number"},
		{"tool_call", `{"session_id":"s","cwd":"/p","payload":{"input":{}}}`, "$.payload.toolName: missing"},
		{"tool_call", `{"session_id":"s","cwd":"/p","payload":{"toolName":"write","input":{"content":"x"}}}`, "$.payload.input.path: expected the write target path, got nothing"},
		{"tool_result", `{"session_id":"s","cwd":"/p","payload":{"toolName":"bash","input":{"command":"x"},"content":[],"isError":"no"}}`, "$.payload.isError: expected a boolean, got a string"},
		{"message_end", `{"session_id":"s","cwd":"/p","payload":{"message":{"role":"user"}}}`, `$.payload.message.role: expected "assistant"`},
	}
	for _, c := range cases {
		_, err := New().Decode(c.event, []byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Decode(%q, %s): err %v, want it to contain %q", c.event, c.in, err, c.want)
		}
	}
}

func TestEncode(t *testing.T) {
	stop := loop.HookEvent{Harness: "pi", Name: loop.EventStop}
	out := New().Encode(stop, loop.Decision{Action: loop.Block, Reason: "run the tests", StopBlocks: 2, MaxStopBlocks: 8, State: "executing"})
	if out.Exit != ExitBlock {
		t.Errorf("block exit %d, want %d", out.Exit, ExitBlock)
	}
	var r Reply
	if err := json.Unmarshal(out.Stdout, &r); err != nil {
		t.Fatalf("stdout %q: %v", out.Stdout, err)
	}
	want := Reply{PluginAnswer: harness.PluginAnswer{Action: "block", Reason: "run the tests", State: "executing"}, StopBlocks: 2, MaxStopBlocks: 8}
	if r != want {
		t.Errorf("reply %+v, want %+v", r, want)
	}

	out = New().Encode(loop.HookEvent{Name: loop.EventSessionStart}, loop.Decision{Action: loop.Steer, Context: "the loop contract"})
	if out.Exit != ExitProceed || !strings.Contains(string(out.Stdout), `"context":"the loop contract"`) || !strings.Contains(string(out.Stdout), `"action":"steer"`) {
		t.Errorf("steer: %d %s", out.Exit, out.Stdout)
	}

	out = New().Encode(loop.HookEvent{Name: loop.EventPostToolUse}, loop.Decision{})
	if out.Exit != 0 || strings.TrimSpace(string(out.Stdout)) != `{"action":"allow","stopBlocks":0}` {
		t.Errorf("zero decision: %d %s", out.Exit, out.Stdout)
	}

	// pi hands an empty reason to the model as an empty tool result
	out = New().Encode(loop.HookEvent{Name: loop.EventPreToolUse}, loop.Decision{Action: loop.Block})
	if !strings.Contains(string(out.Stdout), `"reason":"hook-loop refused this tool call"`) {
		t.Errorf("empty reason: %s", out.Stdout)
	}
}

// A bash command that is not a string is read for what it holds: a list as
// its argv, anything else as paths the call may write (never an error that
// lets the call through unjudged).
func TestDecodeOddCommand(t *testing.T) {
	in := func(cmd string) string {
		return `{"session_id":"s","cwd":"/p","payload":{"toolName":"bash","input":{"command":` + cmd + `}}}`
	}
	ev, err := New().Decode("tool_call", []byte(in(`["rm","-f","hook-loop.json"]`)))
	if err != nil || ev.Command != "rm -f hook-loop.json" {
		t.Fatalf("list command: %q, %v", ev.Command, err)
	}
	ev, err = New().Decode("tool_call", []byte(in(`{"x":["hook-loop.json"]}`)))
	if err != nil || !slices.Contains(ev.TargetPaths, "/p/hook-loop.json") {
		t.Fatalf("object command: targets %v, %v", ev.TargetPaths, err)
	}
}

// TestReadPathsResolvedAsPiDoes: pi's read, grep, find and ls resolve their
// path as write and edit do, a leading "@" dropped and unicode spaces made
// spaces, so the guard judges the file pi reads (a key, say).
func TestReadPathsResolvedAsPiDoes(t *testing.T) {
	for in, want := range map[string]string{
		`{"path":"@/s/hook-loop/keys/k.key"}`:    "/s/hook-loop/keys/k.key",
		`{"path":"@keys/k.key"}`:                 "/p/keys/k.key",
		"{\"path\":\"/s/hook\u00a0loop/k.key\"}": "/s/hook loop/k.key",
	} {
		ev, err := New().Decode("tool_call", []byte(`{"session_id":"s","cwd":"/p","payload":{"toolName":"read","input":`+in+`}}`))
		if err != nil {
			t.Fatal(err)
		}
		if len(ev.ReadPaths) != 1 || ev.ReadPaths[0] != want {
			t.Errorf("%s: ReadPaths = %q, want [%s]", in, ev.ReadPaths, want)
		}
	}
}
