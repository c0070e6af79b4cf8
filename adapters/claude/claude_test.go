package claude

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/loop"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the current output")

var _ harness.Adapter = Adapter{}

// payloadDir is where the real Claude Code 2.1.328 hook payloads live.
func payloadDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "harness", "claude", "payloads", "events"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("real Claude Code payloads not found at %s (../shared beside the repo): skipping", dir)
	}
	return dir
}

func readPayload(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(payloadDir(t), name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decode(t *testing.T, event string, input []byte) loop.HookEvent {
	t.Helper()
	ev, err := New().Decode(event, input)
	if err != nil {
		t.Fatalf("Decode(%q): %v", event, err)
	}
	return ev
}

func TestDecodeRealPayloads(t *testing.T) {
	tests := []struct {
		file string
		want loop.HookEvent // only the fields set here are compared (plus Name)
		exit *int
	}{
		{file: "SessionStart-startup.json", want: loop.HookEvent{Name: "SessionStart", Source: "startup",
			SessionID: "3f78cda8-9e3a-46cd-99da-346fa6cc315a", Cwd: "/home/dev/project"}},
		{file: "SessionStart-compact.json", want: loop.HookEvent{Name: "SessionStart", Source: "compact", Model: "claude-opus-5-5"}},
		{file: "UserPromptSubmit.json", want: loop.HookEvent{Name: "UserPromptSubmit", Prompt: "run echo hello",
			TurnID: "ac49008b-baab-4350-ade6-62784607c1df"}},
		{file: "PreToolUse.json", want: loop.HookEvent{Name: "PreToolUse", ToolName: "Bash", Command: "echo hello",
			ToolUseID: "toolu_mock000001"}},
		{file: "PreToolUse-Write.json", want: loop.HookEvent{Name: "PreToolUse", ToolName: "Write",
			TargetPaths: []string{"/home/dev/project/created.txt"}}},
		{file: "PreToolUse-Edit.json", want: loop.HookEvent{Name: "PreToolUse", ToolName: "Edit",
			TargetPaths: []string{"/home/dev/project/existing.txt"}}},
		{file: "PreToolUse-NotebookEdit.json", want: loop.HookEvent{Name: "PreToolUse", ToolName: "NotebookEdit",
			TargetPaths: []string{"/home/dev/project/nb.ipynb"}}},
		{file: "PreToolUse-Bash-shell-write.json", want: loop.HookEvent{Name: "PreToolUse", ToolName: "Bash",
			Command: "echo x > shell-written.txt"}},
		{file: "PermissionRequest.json", want: loop.HookEvent{Name: "PermissionRequest", ToolName: "Bash",
			Command: "touch probe-file.txt"}},
		{file: "PermissionRequest-Write.json", want: loop.HookEvent{Name: "PermissionRequest", ToolName: "Write"}},
		{file: "PostToolUse.json", want: loop.HookEvent{Name: "PostToolUse", NativeName: "PostToolUse", ToolName: "Bash",
			Command: "echo hello"}, exit: loop.IntPtr(0)},
		{file: "PostToolUse-Write.json", want: loop.HookEvent{Name: "PostToolUse", ToolName: "Write",
			TargetPaths: []string{"/home/dev/project/created.txt"}}, exit: loop.IntPtr(0)},
		{file: "PostToolUseFailure.json", want: loop.HookEvent{Name: "PostToolUse", NativeName: "PostToolUseFailure",
			ToolName: "Bash", Command: "ls /nonexistent-probe-dir"}, exit: loop.IntPtr(2)},
		{file: "Stop.json", want: loop.HookEvent{Name: "Stop", LastAssistantMessage: "done"}},
		{file: "Stop-stop_hook_active-true.json", want: loop.HookEvent{Name: "Stop", StopHookActive: true,
			LastAssistantMessage: "done again"}},
		{file: "SubagentStop-in-subagent.json", want: loop.HookEvent{Name: "SubagentStop", LastAssistantMessage: "done"}},
		{file: "PreCompact.json", want: loop.HookEvent{Name: "PreCompact", Source: "manual"}},
		{file: "PostCompact.json", want: loop.HookEvent{Name: "PostCompact", Source: "manual"}},
		{file: "SessionEnd.json", want: loop.HookEvent{Name: "SessionEnd", Source: "other"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			raw := readPayload(t, tt.file)
			ev := decode(t, "", raw)
			if ev.Harness != "claude" {
				t.Errorf("Harness = %q", ev.Harness)
			}
			if ev.SessionID == "" || ev.TranscriptPath == "" {
				t.Errorf("session_id / transcript_path not decoded: %+v", ev)
			}
			if !json.Valid(ev.Raw) {
				t.Errorf("Raw is not the input JSON")
			}
			compareSet(t, tt.want, ev)
			if tt.want.Name == "PostToolUse" {
				if ev.Result == nil {
					t.Fatal("Result is nil for a PostToolUse")
				}
				if !reflect.DeepEqual(ev.Result.ExitCode, tt.exit) {
					t.Errorf("ExitCode = %v, want %v", deref(ev.Result.ExitCode), deref(tt.exit))
				}
			} else if ev.Result != nil {
				t.Errorf("Result set on %s", ev.Name)
			}
			// The --event flag and hook_event_name agree on real payloads.
			byFlag := decode(t, ev.NativeName, raw)
			if !reflect.DeepEqual(byFlag, ev) {
				t.Errorf("decoding with --event %s differs from decoding by hook_event_name", ev.NativeName)
			}
		})
	}
}

// compareSet compares the non-zero fields of want with got.
func compareSet(t *testing.T, want, got loop.HookEvent) {
	t.Helper()
	wv, gv := reflect.ValueOf(want), reflect.ValueOf(got)
	for i := 0; i < wv.NumField(); i++ {
		if wv.Field(i).IsZero() {
			continue
		}
		if !reflect.DeepEqual(wv.Field(i).Interface(), gv.Field(i).Interface()) {
			t.Errorf("%s = %#v, want %#v", wv.Type().Field(i).Name, gv.Field(i).Interface(), wv.Field(i).Interface())
		}
	}
}

func deref(p *int) any {
	if p == nil {
		return "unknown"
	}
	return *p
}

func TestDecodePostToolUseResults(t *testing.T) {
	ev := decode(t, "", []byte(`{"session_id":"s","cwd":"/p","hook_event_name":"PostToolUse","tool_name":"Bash",
		"tool_input":{"command":"go test ./..."},"tool_response":{"stdout":"ok","stderr":"warn","interrupted":false}}`))
	if ev.Result.Stdout != "ok" || ev.Result.Stderr != "warn" || ev.Result.Output != "ok\nwarn" || deref(ev.Result.ExitCode) != 0 {
		t.Errorf("bash result = %+v (exit %v)", ev.Result, deref(ev.Result.ExitCode))
	}
	ev = decode(t, "", []byte(`{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Bash",
		"tool_input":{"command":"sleep 100"},"tool_response":{"stdout":"","stderr":"","interrupted":true}}`))
	if ev.Result.ExitCode != nil {
		t.Errorf("interrupted command has exit code %v, want unknown", *ev.Result.ExitCode)
	}
	ev = decode(t, "", []byte(`{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Bash",
		"tool_input":{"command":"make","run_in_background":true},"tool_response":{"stdout":"","stderr":"","interrupted":false,"backgroundTaskId":"b1"}}`))
	if ev.Result.ExitCode != nil {
		t.Errorf("background command has exit code %v, want unknown", *ev.Result.ExitCode)
	}
	ev = decode(t, "PostToolUseFailure", []byte(`{"session_id":"s","tool_name":"Bash","tool_input":{"command":"false"},"error":"Exit code 1","is_interrupt":false}`))
	if deref(ev.Result.ExitCode) != 1 || ev.Result.Output != "" || ev.Name != "PostToolUse" || ev.NativeName != "PostToolUseFailure" {
		t.Errorf("failure = %+v exit %v", ev, deref(ev.Result.ExitCode))
	}
	ev = decode(t, "PostToolUseFailure", []byte(`{"session_id":"s","tool_name":"Bash","tool_input":{"command":"sleep 9"},"error":"Exit code 143\nkilled","is_interrupt":true}`))
	if ev.Result.ExitCode != nil {
		t.Errorf("interrupted failure has exit code %d, want unknown", *ev.Result.ExitCode)
	}
	ev = decode(t, "PostToolUseFailure", []byte(`{"session_id":"s","tool_name":"Write","tool_input":{"file_path":"/x/y"},"error":"EACCES: permission denied"}`))
	if ev.Result.ExitCode != nil || ev.Result.Output != "EACCES: permission denied" {
		t.Errorf("non-Bash failure: exit %v output %q, want unknown exit code", deref(ev.Result.ExitCode), ev.Result.Output)
	}
}

func TestDecodeTargetPaths(t *testing.T) {
	tests := []struct {
		tool, input string
		want        []string
	}{
		{"Write", `{"file_path":"rel/a.txt"}`, []string{"/proj/rel/a.txt"}},
		{"Edit", `{"file_path":"/abs/b.go"}`, []string{"/abs/b.go"}},
		{"MultiEdit", `{"file_path":"../up.txt"}`, []string{"/up.txt"}},
		{"NotebookEdit", `{"notebook_path":"nb.ipynb"}`, []string{"/proj/nb.ipynb"}},
		{"Read", `{"file_path":"/abs/read-only.txt"}`, nil},
		// What a Bash command writes is read by the engine (loop.TestShellWriteTargets).
		{"Bash", `{"command":"echo a > one.txt"}`, nil},
	}
	for _, tt := range tests {
		in := `{"session_id":"s","cwd":"/proj","hook_event_name":"PreToolUse","tool_name":"` + tt.tool + `","tool_input":` + tt.input + `}`
		ev := decode(t, "", []byte(in))
		if !reflect.DeepEqual(ev.TargetPaths, tt.want) {
			t.Errorf("%s %s: TargetPaths = %q, want %q", tt.tool, tt.input, ev.TargetPaths, tt.want)
		}
		if tt.tool != "Bash" && ev.Command != "" {
			t.Errorf("%s: Command = %q, want empty for a non-Bash tool", tt.tool, ev.Command)
		}
	}
}

// TestDecodeReadPaths: what read tools name reaches the engine, which
// refuses hook-loop's secrets to them.
func TestDecodeReadPaths(t *testing.T) {
	for tool, tt := range map[string]struct{ input, want string }{
		"Read": {`{"file_path":"/abs/k.key"}`, "/abs/k.key"},
		"Grep": {`{"pattern":"x","path":"state"}`, "state"},
		"Glob": {`{"pattern":"*","path":"/s"}`, "/s"},
		// As given: the guard expands ~ as the tool does (it was read as <cwd>/~/...).
		"LS": {`{"path":"~/.local/state/hook-loop/keys"}`, "~/.local/state/hook-loop/keys"},
	} {
		in := `{"session_id":"s","cwd":"/proj","hook_event_name":"PreToolUse","tool_name":"` + tool + `","tool_input":` + tt.input + `}`
		if ev := decode(t, "", []byte(in)); !reflect.DeepEqual(ev.ReadPaths, []string{tt.want}) {
			t.Errorf("%s: ReadPaths = %q, want [%s]", tool, ev.ReadPaths, tt.want)
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		event, input, want string
	}{
		{"", ``, "stdin is empty"},
		{"", `{"hook_event_name":`, "not valid JSON"},
		{"", `[1,2]`, "$ is an array: expected a JSON object"},
		{"", `{"session_id":"s"}`, "$.hook_event_name is missing and no --event was given"},
		{"", `{"hook_event_name":"PostToolBatch"}`, `unsupported Claude Code event "PostToolBatch"`},
		{"Notification", `{}`, `unsupported Claude Code event "Notification"`},
		{"", `{"hook_event_name":"Stop","stop_hook_active":"yes"}`, "$.stop_hook_active is a string: expected true or false"},
		{"", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":"ls"}`, "$.tool_input is a string: expected an object"},
		{"", `{"hook_event_name":"PreToolUse","tool_input":{}}`, "$.tool_name is missing"},
		{"", `{"hook_event_name":"UserPromptSubmit","session_id":7}`, "$.session_id is a number: expected a string"},
	}
	for _, tt := range tests {
		_, err := New().Decode(tt.event, []byte(tt.input))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Decode(%q, %s) error = %v, want it to contain %q", tt.event, tt.input, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("error is not one line: %q", err)
		}
	}
}

// decisions are the answers the engine can give, by name.
var decisions = map[string]loop.Decision{
	"allow":         {Action: loop.Allow},
	"allow-message": {Action: loop.Allow, SystemMessage: "hook-loop: stop allowed after 3 refusals (capped)", Outcome: "capped"},
	"allow-context": {Action: loop.Allow, Context: "hook-loop: loop plan_execute, state planning"},
	"block":         {Action: loop.Block, Reason: "state planning: run `go test ./...` && make it pass <first>"},
	"block-message": {Action: loop.Block, Reason: "not done yet", SystemMessage: "hook-loop refused the stop (2/8)"},
	"block-empty":   {Action: loop.Block},
	"steer":         {Action: loop.Steer, Context: "remember: planning only"},
}

func TestEncodeGolden(t *testing.T) {
	var names []string
	for n := range decisions {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, native := range NativeEvents {
		for _, dn := range names {
			ev := loop.HookEvent{Harness: Name, Name: canonicalOf(native), NativeName: native, ToolName: "Bash"}
			out := New().Encode(ev, decisions[dn])
			golden := filepath.Join("testdata", "golden", "encode", native+"-"+dn+".out")
			got := string(out.Stdout)
			if len(out.Stderr) > 0 {
				got += "stderr: " + string(out.Stderr)
			}
			got += "exit: " + itoa(out.Exit) + "\n"
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./adapters/claude -update)", err)
			}
			if got != string(want) {
				t.Errorf("%s × %s:\n got: %s\nwant: %s", native, dn, got, want)
			}
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// A refused session_start ends the session: Claude Code honours continue:false
// with stopReason on every event (experiments stop_continue_false,
// pre_continue_false: the session ends without another model call).
func TestEncodeSessionStartEndSession(t *testing.T) {
	ev := loop.HookEvent{Harness: Name, Name: loop.EventSessionStart, NativeName: loop.EventSessionStart}
	out := New().Encode(ev, loop.Decision{Action: loop.Block, Reason: "not on the roster", EndSession: true})
	var obj map[string]any
	if err := json.Unmarshal(out.Stdout, &obj); err != nil {
		t.Fatalf("stdout %q: %v", out.Stdout, err)
	}
	if obj["continue"] != false || obj["stopReason"] != "not on the roster" || out.Exit != 0 {
		t.Fatalf("output = %s, want continue:false with the reason", out.Stdout)
	}
	plain := New().Encode(ev, loop.Decision{Action: loop.Block, Reason: "x"})
	if strings.Contains(string(plain.Stdout), "continue") {
		t.Errorf("a block without EndSession ended the session: %s", plain.Stdout)
	}
}

// TestEncodeContract checks, for every event × decision, the rules measured on the
// real binary: exit 0 always; stdout empty or one JSON object; hookSpecificOutput
// always names the event Claude fired; never an explicit allow; a block is always
// carried in a shape Claude honours for that event.
func TestEncodeContract(t *testing.T) {
	for _, native := range NativeEvents {
		for dn, d := range decisions {
			ev := loop.HookEvent{Harness: Name, Name: canonicalOf(native), NativeName: native, ToolName: "Bash"}
			out := New().Encode(ev, d)
			if out.Exit != 0 {
				t.Errorf("%s × %s: exit %d, want 0 (a refusal rides on the JSON)", native, dn, out.Exit)
			}
			if len(out.Stdout) == 0 {
				if d.Action == loop.Block && blockable(native) {
					t.Errorf("%s × %s: empty output for a block", native, dn)
				}
				if d.SystemMessage != "" {
					t.Errorf("%s × %s: system message dropped", native, dn)
				}
				continue
			}
			var obj map[string]any
			if err := json.Unmarshal(out.Stdout, &obj); err != nil {
				t.Errorf("%s × %s: stdout is not a JSON object: %v: %s", native, dn, err, out.Stdout)
				continue
			}
			for k := range obj {
				switch k {
				case "decision", "reason", "systemMessage", "hookSpecificOutput":
				default:
					t.Errorf("%s × %s: unexpected field %q", native, dn, k)
				}
			}
			if dec, ok := obj["decision"]; ok && dec != "block" {
				t.Errorf("%s × %s: decision %v, only block is ever printed", native, dn, dec)
			}
			if hs, ok := obj["hookSpecificOutput"].(map[string]any); ok {
				if hs["hookEventName"] != native {
					t.Errorf("%s × %s: hookSpecificOutput.hookEventName = %v, want %s", native, dn, hs["hookEventName"], native)
				}
				if pd, ok := hs["permissionDecision"]; ok && pd != "deny" {
					t.Errorf("%s × %s: permissionDecision %v: never an explicit allow/ask", native, dn, pd)
				}
				if pdec, ok := hs["decision"].(map[string]any); ok && pdec["behavior"] != "deny" {
					t.Errorf("%s × %s: decision.behavior %v: never an explicit allow", native, dn, pdec["behavior"])
				}
			} else if _, present := obj["hookSpecificOutput"]; present {
				t.Errorf("%s × %s: hookSpecificOutput is not an object", native, dn)
			}
			if d.Action == loop.Block && blockable(native) && !strings.Contains(string(out.Stdout), "deny") && obj["decision"] != "block" {
				t.Errorf("%s × %s: a block that Claude would not honour: %s", native, dn, out.Stdout)
			}
			if d.SystemMessage != "" && !strings.Contains(obj["systemMessage"].(string), d.SystemMessage) {
				t.Errorf("%s × %s: systemMessage %v, want it to hold %q", native, dn, obj["systemMessage"], d.SystemMessage)
			}
		}
	}
}

func blockable(native string) bool {
	switch native {
	case "PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure", "Stop", "SubagentStop", "UserPromptSubmit":
		return true
	}
	return false
}
