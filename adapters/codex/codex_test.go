package codex

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/loop"
)

// sharedCodex is ../shared/harness/codex relative to the repository root.
func sharedCodex(t testing.TB) string {
	dir, _ := filepath.Abs(filepath.Join("..", "..", "..", "shared", "harness", "codex"))
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("real Codex payloads not found at %s (../shared is absent): skipping", dir)
	}
	return dir
}

func decodeFile(t *testing.T, path string) loop.HookEvent {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := New().Decode("", b)
	if err != nil {
		t.Fatalf("%s: %v", filepath.Base(path), err)
	}
	return ev
}

// TestDecodeEveryRealPayload decodes every stdin Codex 0.169 really sent.
func TestDecodeEveryRealPayload(t *testing.T) {
	dir := filepath.Join(sharedCodex(t), "payloads", "events")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) < 12 {
		t.Fatalf("only %d payloads in %s", len(files), dir)
	}
	seen := map[string]bool{}
	for _, f := range files {
		ev := decodeFile(t, f)
		seen[ev.NativeName] = true
		if ev.Harness != "codex" || ev.SessionID == "" || ev.Cwd == "" || len(ev.Raw) == 0 {
			t.Errorf("%s: incomplete event %+v", filepath.Base(f), ev)
		}
		if ev.Name != ev.NativeName {
			t.Errorf("%s: name %q != native %q", filepath.Base(f), ev.Name, ev.NativeName)
		}
		if strings.HasPrefix(filepath.Base(f), "PostToolUse") && ev.Result == nil {
			t.Errorf("%s: no result", filepath.Base(f))
		}
	}
	for _, n := range NativeEvents {
		if !seen[n] {
			t.Errorf("no real payload decoded for %s", n)
		}
	}
}

func TestDecodeFields(t *testing.T) {
	dir := filepath.Join(sharedCodex(t), "payloads", "events")

	ev := decodeFile(t, filepath.Join(dir, "PreToolUse.json"))
	if ev.Name != loop.EventPreToolUse || ev.ToolName != "Bash" || ev.Command != "echo hello" || ev.ToolUseID == "" || ev.TurnID == "" {
		t.Errorf("PreToolUse: %+v", ev)
	}
	ev = decodeFile(t, filepath.Join(dir, "PreToolUse-apply_patch-combined.json"))
	want := []string{"created.txt", "existing.txt", "todelete.txt", "tomove.txt", "moved/renamed.txt"}
	for i, w := range want {
		want[i] = filepath.Join("/home/dev/probe-edit/repo", w)
	}
	if ev.ToolName != "apply_patch" || ev.Command != "" || !reflect.DeepEqual(ev.TargetPaths, want) {
		t.Errorf("apply_patch combined: tool %q command %q paths %q", ev.ToolName, ev.Command, ev.TargetPaths)
	}
	ev = decodeFile(t, filepath.Join(dir, "PreToolUse-Bash-apply_patch-heredoc.json"))
	if ev.ToolName != "Bash" || !reflect.DeepEqual(ev.TargetPaths, []string{"/home/dev/probe-edit/repo/created.txt"}) {
		t.Errorf("heredoc: %q %q", ev.ToolName, ev.TargetPaths)
	}
	ev = decodeFile(t, filepath.Join(dir, "PreToolUse-apply_patch-absolute-path.json"))
	if !reflect.DeepEqual(ev.TargetPaths, []string{"/home/dev/probe-edit/repo/abs-created.txt"}) {
		t.Errorf("absolute: %q", ev.TargetPaths)
	}
	ev = decodeFile(t, filepath.Join(dir, "Stop-stop_hook_active-true.json"))
	if ev.Name != loop.EventStop || !ev.StopHookActive || ev.LastAssistantMessage == "" {
		t.Errorf("Stop: %+v", ev)
	}
	ev = decodeFile(t, filepath.Join(dir, "UserPromptSubmit.json"))
	if ev.Prompt == "" {
		t.Errorf("UserPromptSubmit: no prompt")
	}
	ev = decodeFile(t, filepath.Join(dir, "SessionStart-resume.json"))
	if ev.Source != "resume" || ev.Model != "mock-model" {
		t.Errorf("SessionStart source %q model %q", ev.Source, ev.Model)
	}
	ev = decodeFile(t, filepath.Join(dir, "PostToolUse-apply_patch-update.json"))
	if ev.Result == nil || ev.Result.ExitCode == nil || *ev.Result.ExitCode != 0 {
		t.Errorf("apply_patch exit code: %+v", ev.Result)
	}
	// The rollout of this payload is not on this machine: unknown stays unknown.
	ev = decodeFile(t, filepath.Join(dir, "PostToolUse-failing-command.json"))
	if ev.Result == nil || ev.Result.ExitCode != nil {
		t.Errorf("failing command without rollout: %+v", ev.Result)
	}
	ev = decodeFile(t, filepath.Join(dir, "PermissionRequest-apply_patch.json"))
	if ev.Name != loop.EventPermissionRequest || ev.ToolName != "apply_patch" || len(ev.TargetPaths) != 1 {
		t.Errorf("PermissionRequest apply_patch: %+v", ev)
	}
}

// TestDecodeAliases covers the prototype's input aliases, so hand-fed payloads
// and old tooling keep working.
func TestDecodeAliases(t *testing.T) {
	in := `{"thread_id":"s1","run_id":"r1","cwd":"/p","tool":"shell","input":{"command":["bash","-lc","rm -rf x"]},
	        "tool_output":{"exit_code":2,"stdout":"o","stderr":"e"},"user_prompt":"hi"}`
	ev, err := New().Decode("PostToolUse", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if ev.SessionID != "s1" || ev.TurnID != "r1" || ev.ToolName != "Bash" || ev.Command != "rm -rf x" || ev.Prompt != "hi" {
		t.Errorf("aliases: %+v", ev)
	}
	if ev.Result == nil || ev.Result.ExitCode == nil || *ev.Result.ExitCode != 2 || ev.Result.Stdout != "o" || ev.Result.Stderr != "e" {
		t.Errorf("tool_output alias: %+v", ev.Result)
	}
	// Another program's -c text is not a shell script: python3 -c runs Python.
	ev, err = New().Decode("PreToolUse", []byte(`{"session_id":"s","cwd":"/p","tool_name":"shell","tool_input":{"command":["python3","-c","import os"]}}`))
	if err != nil || ev.Command != "python3 -c 'import os'" {
		t.Errorf("python3 -c argv: Command %q, %v", ev.Command, err)
	}
	ev, err = New().Decode("PostToolUse", []byte(`{"session_id":"s","output":"plain","tool_name":"Write","tool_input":{"file_path":"a/b.txt"},"cwd":"/r"}`))
	if err != nil {
		t.Fatal(err)
	}
	if ev.Result.Output != "plain" || ev.Result.ExitCode != nil || !reflect.DeepEqual(ev.TargetPaths, []string{"/r/a/b.txt"}) {
		t.Errorf("output alias / file_path: %+v %q", ev.Result, ev.TargetPaths)
	}
	// --event wins over the payload, as in the prototype.
	ev, err = New().Decode("Stop", []byte(`{"hook_event_name":"PreToolUse","session_id":"s"}`))
	if err != nil || ev.Name != "Stop" {
		t.Errorf("flag precedence: %v %q", err, ev.Name)
	}
}

func TestDecodeErrors(t *testing.T) {
	cases := map[string]struct{ event, in, want string }{
		"empty":         {"Stop", "  ", "empty"},
		"not json":      {"Stop", "{nope", "invalid JSON"},
		"array":         {"Stop", "[1]", "$: expected an object, got an array"},
		"no event":      {"", `{"session_id":"s"}`, "$.hook_event_name: missing"},
		"unknown event": {"Bogus", `{}`, `unknown event "Bogus"`},
		"bad type":      {"Stop", `{"session_id":5}`, "$.session_id: expected a string, got a number"},
		"bad bool":      {"Stop", `{"stop_hook_active":"yes"}`, "$.stop_hook_active: expected a boolean"},
		"bad input":     {"PreToolUse", `{"tool_input":"x"}`, "$.tool_input: expected an object, got a string"},
	}
	for name, c := range cases {
		_, err := New().Decode(c.event, []byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", name, err, c.want)
		}
	}
}

// withRollout points a captured PostToolUse payload at a captured rollout.
func capturedPosts(t *testing.T, rollout string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "posttooluse-exec.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		m["transcript_path"] = rollout
		nb, _ := json.Marshal(m)
		out = append(out, nb)
	}
	return out
}

// TestExitCodeFromRollout uses a real run: echo hi (0), a command exiting 3,
// and an apply_patch, with the rollout Codex wrote for them.
func TestExitCodeFromRollout(t *testing.T) {
	rollout, _ := filepath.Abs(filepath.Join("testdata", "rollout-exec.jsonl"))
	want := []int{0, 3, 0}
	for i, in := range capturedPosts(t, rollout) {
		ev, err := New().Decode("", in)
		if err != nil {
			t.Fatal(err)
		}
		if ev.Result.ExitCode == nil || *ev.Result.ExitCode != want[i] {
			t.Errorf("call %d (%s): exit code %v, want %d", i+1, ev.ToolUseID, ev.Result.ExitCode, want[i])
		}
	}
}

func TestExitCodeFallbackAndBounds(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("testdata", "rollout-exec.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// Without the item_completed entries, the function_call_output's
	// "Process exited with code N" still tells.
	var kept []string
	for _, l := range strings.Split(string(src), "\n") {
		if !strings.Contains(l, "item_completed") {
			kept = append(kept, l)
		}
	}
	p := filepath.Join(dir, "no-item.jsonl")
	os.WriteFile(p, []byte(strings.Join(kept, "\n")), 0o644)
	a := New()
	if c := a.rolloutExitCode(p, "call_mock_2"); c == nil || *c != 3 {
		t.Errorf("fallback: %v", c)
	}
	// An entry beyond the tail window is not read: the cost is bounded.
	big := filepath.Join(dir, "big.jsonl")
	pad := strings.Repeat(`{"type":"event_msg","payload":{"type":"token_count"}}`+"\n", 6000)
	os.WriteFile(big, append(src, []byte(pad)...), 0o644)
	a.RolloutWait = 0
	if c := a.rolloutExitCode(big, "call_mock_2"); c != nil {
		t.Errorf("read beyond the tail window: %v", *c)
	}
	a.RolloutTail = 1 << 20
	if c := a.rolloutExitCode(big, "call_mock_2"); c == nil || *c != 3 {
		t.Errorf("larger window: %v", c)
	}
	// A torn last line is ignored.
	torn := filepath.Join(dir, "torn.jsonl")
	os.WriteFile(torn, append(append([]byte{}, src...), []byte(`{"type":"event_msg","payload":{"type":"item_completed","item":{"id":"call_mock_9","exit_`)...), 0o644)
	if c := New().rolloutExitCode(torn, "call_mock_1"); c == nil || *c != 0 {
		t.Errorf("torn: %v", c)
	}
	// Missing file: unknown at once, no waiting.
	slept := 0
	a = New()
	a.sleep = func(time.Duration) { slept++ }
	if c := a.rolloutExitCode(filepath.Join(dir, "absent.jsonl"), "call_mock_1"); c != nil || slept != 0 {
		t.Errorf("absent: %v, slept %d", c, slept)
	}
	// Unknown call: a bounded number of retries, then unknown.
	var total time.Duration
	a.sleep = func(d time.Duration) { total += d; slept++ }
	if c := a.rolloutExitCode(p, "call_unknown"); c != nil {
		t.Errorf("unknown call: %v", *c)
	}
	if slept == 0 || total > a.RolloutWait {
		t.Errorf("retries: %d sleeps, %v total (bound %v)", slept, total, a.RolloutWait)
	}
}

// TestNoWaitWhenTheCallHasCompleted: a tool whose completion carries no exit
// code (a file change, an MCP call) must not wait for one.
func TestNoWaitWhenTheCallHasCompleted(t *testing.T) {
	rollout := filepath.Join("testdata", "rollout-exec.jsonl")
	a := New()
	slept := 0
	a.sleep = func(time.Duration) { slept++ }
	// call_mock_3 is the apply_patch: its item_completed has no exit_code (the
	// adapter reads "Exit code: 0" from tool_response instead).
	if c := a.rolloutExitCode(rollout, "call_mock_3"); c != nil {
		t.Fatalf("exit code %d from a file change", *c)
	}
	if slept != 0 {
		t.Errorf("waited %d times for a call that had completed", slept)
	}
	// Non-shell tools never read the rollout at all.
	in := `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"spawn_agent","tool_input":{},"tool_response":"{}","tool_use_id":"call_mock_1","transcript_path":"` + rollout + `"}`
	ev, err := New().Decode("", []byte(in))
	if err != nil || ev.Result.ExitCode != nil {
		t.Errorf("spawn_agent: %v %v", err, ev.Result.ExitCode)
	}
}

// TestExitCodeLandsLate appends the entry while the adapter is waiting.
func TestExitCodeLandsLate(t *testing.T) {
	p := filepath.Join(t.TempDir(), "r.jsonl")
	os.WriteFile(p, []byte(`{"type":"session_meta"}`+"\n"), 0o644)
	a := New()
	a.sleep = func(d time.Duration) {
		f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString(`{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","id":"call_7","exit_code":5}}}` + "\n")
		f.Close()
	}
	if c := a.rolloutExitCode(p, "call_7"); c == nil || *c != 5 {
		t.Fatalf("late entry: %v", c)
	}
}

// TestHalfWrittenEntryIsNotRead: Codex may be writing the entry as the hook
// reads; a line without its newline is not trusted.
func TestHalfWrittenEntryIsNotRead(t *testing.T) {
	p := filepath.Join(t.TempDir(), "r.jsonl")
	full := `{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","id":"call_8","exit_code":12}}}`
	os.WriteFile(p, []byte(`{"type":"session_meta"}`+"\n"+full[:len(full)-4]), 0o644)
	a := New()
	a.sleep = func(time.Duration) {
		os.WriteFile(p, []byte(`{"type":"session_meta"}`+"\n"+full+"\n"), 0o644)
	}
	if c := a.rolloutExitCode(p, "call_8"); c == nil || *c != 12 {
		t.Fatalf("exit code %v, want 12 once the line is complete", c)
	}
}

func TestPatchExitCode(t *testing.T) {
	for in, want := range map[string]int{"Exit code: 0\nWall": 0, "Exit code: 1\n": 1, "Exit code: 12": 12} {
		if n, ok := patchExitCode(in); !ok || n != want {
			t.Errorf("%q: %d %v", in, n, ok)
		}
	}
	for _, in := range []string{"", "hello\nExit code: 0", "Exit code: x"} {
		if _, ok := patchExitCode(in); ok {
			t.Errorf("%q parsed", in)
		}
	}
}

// A command of an odd shape is read for what it holds: a list as its argv
// (each word quoted), anything else as paths the call may write.
func TestDecodeOddCommand(t *testing.T) {
	in := func(cmd string) string {
		return `{"session_id":"s1","cwd":"/p","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":` + cmd + `}}`
	}
	ev, err := New().Decode("PreToolUse", []byte(in(`["rm","-f","my file"]`)))
	if err != nil || ev.Command != "rm -f 'my file'" {
		t.Fatalf("list command: %q, %v", ev.Command, err)
	}
	ev, err = New().Decode("PreToolUse", []byte(in(`{"x":"hook-loop.json"}`)))
	if err != nil || !slices.Contains(ev.TargetPaths, "/p/hook-loop.json") {
		t.Fatalf("object command: targets %v, %v", ev.TargetPaths, err)
	}
}

// TestWorkdirFromRollout: Codex runs a shell call in its workdir, which the
// PreToolUse payload leaves out; the adapter reads it from the model's call
// in the rollout, so the command's relative paths (and a heredoc patch's)
// are judged from there.
func TestWorkdirFromRollout(t *testing.T) {
	dir := t.TempDir()
	rollout := filepath.Join(dir, "rollout.jsonl")
	lines := `{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\": \"rm events.jsonl\", \"workdir\": \".hook-loop\"}","call_id":"call_w1"}}
{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\": \"echo call_w1\"}","call_id":"call_w2"}}
{"timestamp":"t","type":"response_item","payload":{"type":"local_shell_call","call_id":"call_w3","action":{"type":"exec","command":["rm","x"],"working_directory":"/abs/dir"}}}
{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\": \"bash\", \"tty\": true}","call_id":"call_w4"}}
`
	if err := os.WriteFile(rollout, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	pre := func(id, cmd string) loop.HookEvent {
		in, _ := json.Marshal(map[string]any{"session_id": "s", "cwd": "/proj", "hook_event_name": "PreToolUse", "tool_name": "Bash",
			"transcript_path": rollout, "tool_use_id": id, "tool_input": map[string]string{"command": cmd}})
		a := New()
		a.RolloutWait = 0
		ev, err := a.Decode("", in)
		if err != nil {
			t.Fatal(err)
		}
		return ev
	}
	if ev := pre("call_w1", "rm events.jsonl"); ev.CommandDir != "/proj/.hook-loop" {
		t.Errorf("call_w1: CommandDir = %q, want /proj/.hook-loop", ev.CommandDir)
	}
	ev := pre("call_w1", "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: events.jsonl\n+x\n*** End Patch\nEOF")
	if len(ev.TargetPaths) != 1 || ev.TargetPaths[0] != "/proj/.hook-loop/events.jsonl" {
		t.Errorf("heredoc patch in workdir: TargetPaths = %q", ev.TargetPaths)
	}
	// A line that only mentions the id (an output, another call) is not its call.
	if ev := pre("call_w2", "echo call_w1"); ev.CommandDir != "" {
		t.Errorf("call_w2: CommandDir = %q, want none", ev.CommandDir)
	}
	if ev := pre("call_w3", "rm x"); ev.CommandDir != "/abs/dir" {
		t.Errorf("local_shell_call: CommandDir = %q", ev.CommandDir)
	}
	// Codex writes the call before its hooks run: a call the rollout does
	// not hold cannot have its workdir or terminal read.
	if ev := pre("call_none", "rm x"); ev.CommandDir != "" || ev.Unseen == "" {
		t.Errorf("unknown call: CommandDir = %q, Unseen = %q", ev.CommandDir, ev.Unseen)
	}
	// A terminal session takes input from write_stdin, which no hook sees.
	if ev := pre("call_w4", "bash"); ev.Unseen == "" {
		t.Error("tty session: Unseen is empty")
	}
	if ev := pre("call_w1", "rm events.jsonl"); ev.Unseen != "" {
		t.Errorf("call without tty: Unseen = %q", ev.Unseen)
	}
}

// TestLongCallFromRollout: a call longer than the rollout tail read is still
// found (the read grows with the call's input), and one that cannot be found
// in a rollout that exists is reported unseen, not judged from the session's
// folder. Keys the model escapes are read as Codex decodes them.
func TestLongCallFromRollout(t *testing.T) {
	dir := t.TempDir()
	rollout := filepath.Join(dir, "rollout.jsonl")
	long := "rm events.jsonl #" + strings.Repeat("\"", 100<<10)
	args, _ := json.Marshal(map[string]any{"cmd": long, "workdir": ".hook-loop"})
	line, _ := json.Marshal(map[string]any{"timestamp": "t", "type": "response_item", "payload": map[string]any{"type": "function_call", "name": "exec_command", "arguments": string(args), "call_id": "c1"}})
	// A call padded past any size the hook's input suggests.
	padded := `{"cmd": "rm events.jsonl", "workdir": ".hook-loop"` + strings.Repeat(" ", 600<<10) + `}`
	line2, _ := json.Marshal(map[string]any{"timestamp": "t", "type": "response_item", "payload": map[string]any{"type": "function_call", "name": "exec_command", "arguments": padded, "call_id": "c2"}})
	esc := `{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\": \"rm events.jsonl\", \"work\\u0064ir\": \".hook-loop\", \"t\\u0074y\": false}","call_id":"c3"}}`
	esc2 := `{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\": \"bash\", \"t\\u0074y\": true}","call_id":"c4"}}`
	// The padded call first: the long one is the last written, as Codex
	// writes a call just before its hooks run.
	data := append(append(line2, '\n'), append(line, '\n')...)
	py := `{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\": \"import os\", \"shell\": \"python3\", \"login\": false}","call_id":"c5"}}`
	data = append(data, esc+"\n"+esc2+"\n"+py+"\n"...)
	if err := os.WriteFile(rollout, data, 0o600); err != nil {
		t.Fatal(err)
	}
	pre := func(id, cmd string) loop.HookEvent {
		in, _ := json.Marshal(map[string]any{"session_id": "s", "cwd": "/proj", "hook_event_name": "PreToolUse", "tool_name": "Bash",
			"transcript_path": rollout, "tool_use_id": id, "tool_input": map[string]string{"command": cmd}})
		a := New()
		a.RolloutWait = 0
		ev, err := a.Decode("", in)
		if err != nil {
			t.Fatal(err)
		}
		return ev
	}
	if ev := pre("c1", long); ev.CommandDir != "/proj/.hook-loop" || ev.Unseen != "" {
		t.Errorf("long call: CommandDir = %q, Unseen = %q", ev.CommandDir, ev.Unseen)
	}
	if ev := pre("c2", "rm events.jsonl"); ev.CommandDir != "" || ev.Unseen == "" {
		t.Errorf("padded call: CommandDir = %q, Unseen = %q", ev.CommandDir, ev.Unseen)
	}
	if ev := pre("c3", "rm events.jsonl"); ev.CommandDir != "/proj/.hook-loop" || ev.Unseen != "" {
		t.Errorf("escaped workdir: CommandDir = %q, Unseen = %q", ev.CommandDir, ev.Unseen)
	}
	if ev := pre("c4", "bash"); ev.Unseen == "" {
		t.Error("escaped tty: Unseen is empty")
	}
	// Codex runs `python3 -c <cmd>`: the text is Python, not shell.
	if ev := pre("c5", "import os"); ev.Unseen == "" {
		t.Error("shell python3: Unseen is empty")
	}
}

// TestRolloutRetryReadsOnlyNew: while waiting for a call, each retry reads
// only what Codex appended since the last read, and a call whose output is
// already in the rollout is not waited for.
func TestRolloutRetryReadsOnlyNew(t *testing.T) {
	dir := t.TempDir()
	rollout := filepath.Join(dir, "rollout.jsonl")
	filler := `{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","x":"` + strings.Repeat("y", 1000) + `"}}` + "\n"
	if err := os.WriteFile(rollout, []byte(strings.Repeat(filler, 200)), 0o600); err != nil {
		t.Fatal(err)
	}
	a := New()
	var slept []time.Duration
	var reads []int
	a.sleep = func(d time.Duration) {
		slept = append(slept, d)
		f, _ := os.OpenFile(rollout, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString(filler)
		f.Close()
	}
	var from int64 = -1
	for i := 0; i < 3; i++ {
		before := from
		a.scanRollout(rollout, "call_x", 0, &from, func(buf []byte) (bool, bool) {
			reads = append(reads, len(buf))
			return false, false
		})
		if i > 0 && before == from {
			t.Fatalf("read %d did not move on", i)
		}
		a.sleep(0)
	}
	if last := reads[len(reads)-1]; last != len(filler) {
		t.Errorf("retry read %d bytes, want only the %d appended", last, len(filler))
	}
	slept = nil
	done := `{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"call_done","output":"x"}}` + "\n"
	f, _ := os.OpenFile(rollout, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(done)
	f.Close()
	a.sleep = func(d time.Duration) { slept = append(slept, d) }
	if _, found, opened := a.rolloutCallArgs(rollout, "call_done", 10); found || !opened || len(slept) != 0 {
		t.Errorf("completed call: found %v opened %v, slept %v", found, opened, slept)
	}
}

// TestShellArgument: exec_command's shell may name any program; a command
// run by one that is not a POSIX shell is not judged as shell text.
func TestShellArgument(t *testing.T) {
	for _, tt := range []struct {
		args   string
		unseen bool
	}{
		{`{"cmd":"ls"}`, false},
		{`{"cmd":"ls","shell":"bash"}`, false},
		{`{"cmd":"ls","shell":"/bin/zsh","login":false}`, false},
		{`{"cmd":"ls","shell":null}`, false},
		{`{"cmd":"import os","shell":"python3","login":false}`, true},
		{`{"cmd":"import os","sh\u0065ll":"python3"}`, true},
		{`{"cmd":"ls","shell":"./bash"}`, true},
		{`{"cmd":"ls","shell":"/proj/bin/bash"}`, true},
		{`{"cmd":"ls","shell":""}`, true},
		{`{"cmd":"ls","shell":["bash"]}`, true},
		{`{"cmd":"ls","tty":"yes"}`, true},
		{`{"cmd":"ls","tty":false}`, false},
	} {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(tt.args), &m); err != nil {
			t.Fatal(err)
		}
		if got := callUnseen(m); (got != "") != tt.unseen {
			t.Errorf("%s: unseen %q", tt.args, got)
		}
	}
}

// TestWorkdirThroughALink: Codex changes into a workdir with a system call,
// so "lnk/.." is the folder above the link's target.
func TestWorkdirThroughALink(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".hook-loop", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, ".hook-loop", "sub"), filepath.Join(root, "lnk")); err != nil {
		t.Fatal(err)
	}
	want, err := filepath.EvalSymlinks(filepath.Join(root, ".hook-loop"))
	if err != nil {
		t.Fatal(err)
	}
	if got := workdir(root, "lnk/.."); got != want {
		t.Errorf("workdir(lnk/..) = %q, want %q", got, want)
	}
	if got := workdir(root, "missing/../x"); got != filepath.Join(root, "x") {
		t.Errorf("workdir of a missing folder = %q", got)
	}
}

// TestMCPToolsJudged: Codex fires PreToolUse for MCP tools too
// (mcp__server__tool); their path arguments are judged as writes and their
// command as a command.
func TestMCPToolsJudged(t *testing.T) {
	dec := func(tool, input string) loop.HookEvent {
		ev, err := New().Decode("", []byte(`{"session_id":"s","cwd":"/proj","hook_event_name":"PreToolUse","tool_name":"`+tool+`","tool_input":`+input+`}`))
		if err != nil {
			t.Fatal(err)
		}
		return ev
	}
	if ev := dec("mcp__fs__edit", `{"edits":[{"file":"hook-loop.json"}]}`); !slices.Contains(ev.TargetPaths, "/proj/hook-loop.json") {
		t.Errorf("mcp file argument: TargetPaths = %q", ev.TargetPaths)
	}
	if ev := dec("mcp__shell__run", `{"cmd":"rm .hook-loop/events.jsonl"}`); ev.Command != "rm .hook-loop/events.jsonl" {
		t.Errorf("mcp cmd: Command = %q", ev.Command)
	}
	// "~/" is the agent's home, for the engine to expand, not a folder "~"
	// in the project.
	if ev := dec("mcp__fs__write_file", `{"path":"~/.claude/settings.json"}`); !slices.Contains(ev.TargetPaths, "~/.claude/settings.json") {
		t.Errorf("mcp ~ path: TargetPaths = %q", ev.TargetPaths)
	}
	if ev := dec("view_image", `{"path":"~/.codex/hooks.json"}`); !slices.Contains(ev.TargetPaths, "~/.codex/hooks.json") {
		t.Errorf("tool ~ path: TargetPaths = %q", ev.TargetPaths)
	}
	if ev := dec("spawn_agent", `{"message":"rm x"}`); ev.Command != "" || len(ev.TargetPaths) != 0 {
		t.Errorf("spawn_agent: Command %q, TargetPaths %q", ev.Command, ev.TargetPaths)
	}
	// The folder an MCP tool works in, and the paths of one named for
	// reading, are read, not written: listing the project is no change to
	// the loop file in it. Its command runs in that folder.
	if ev := dec("mcp__fs__list_directory", `{"path":"."}`); len(ev.TargetPaths) != 0 || !slices.Contains(ev.ReadPaths, ".") {
		t.Errorf("mcp list: TargetPaths %q, ReadPaths %q", ev.TargetPaths, ev.ReadPaths)
	}
	if ev := dec("mcp__shell__run", `{"command":"rm events.jsonl","cwd":".hook-loop"}`); ev.CommandDir != ".hook-loop" || len(ev.TargetPaths) != 0 {
		t.Errorf("mcp command in a folder: CommandDir %q, TargetPaths %q", ev.CommandDir, ev.TargetPaths)
	}
	if ev := dec("mcp__fs__move_file", `{"source":".hook-loop","destination":"/tmp/x"}`); !slices.Contains(ev.TargetPaths, "/proj/.hook-loop") {
		t.Errorf("mcp move: TargetPaths %q", ev.TargetPaths)
	}
}
