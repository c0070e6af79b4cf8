package qwen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/loop"
	"github.com/hook-loop/hook-loop/testkit/fuzzseed/adaptercheck"
)

// payload reads a record captured from the real Qwen Code 0.24.4
// (testdata/payloads, copied from ../shared/harness/qwen/payloads).
func payload(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "payloads", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodeTheRecordedSession(t *testing.T) {
	a := New()
	if a.Harness() != "qwen" {
		t.Fatalf("harness %q", a.Harness())
	}
	want := map[string]string{
		"000-SessionStart.json": loop.EventSessionStart, "002-UserPromptSubmit.json": loop.EventUserPromptSubmit,
		"003-Stop.json": loop.EventStop, "004-UserPromptSubmit.json": loop.EventUserPromptSubmit,
		"005-PreToolUse.json": loop.EventPreToolUse, "006-PostToolUse.json": loop.EventPostToolUse,
		"007-UserPromptSubmit.json": loop.EventUserPromptSubmit, "008-Stop.json": loop.EventStop,
	}
	evs := map[string]loop.HookEvent{}
	for name, canonical := range want {
		ev, err := a.Decode("", payload(t, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if ev.Name != canonical || ev.Harness != "qwen" || ev.SessionID != "93f337d3-44e3-43b0-95de-b51b26f07b47" || ev.Cwd != "/home/user/project" {
			t.Errorf("%s: %+v", name, ev)
		}
		evs[name] = ev
	}
	if ev := evs["003-Stop.json"]; ev.StopHookActive || ev.LastAssistantMessage != "All done, nothing else to do." {
		t.Errorf("first Stop: %+v", ev)
	}
	if ev := evs["008-Stop.json"]; !ev.StopHookActive || ev.LastAssistantMessage != "Checks pass. Finished." {
		t.Errorf("second Stop: %+v", ev)
	}
	if ev := evs["004-UserPromptSubmit.json"]; ev.Prompt != "hook-loop test: you cannot stop yet, run make check first" {
		t.Errorf("the refusal did not come back as the prompt: %q", ev.Prompt)
	}
	pre := evs["005-PreToolUse.json"]
	if pre.ToolName != "Bash" || pre.Command != "make check" || pre.ToolUseID == "" {
		t.Errorf("run_shell_command: tool %q command %q id %q", pre.ToolName, pre.Command, pre.ToolUseID)
	}
	post := evs["006-PostToolUse.json"].Result
	if post == nil || post.ExitCode == nil || *post.ExitCode != 0 || !strings.Contains(post.Output, "all checks ok") {
		t.Errorf("PostToolUse result %+v", post)
	}
	// Qwen fires Notification too; hook-loop does not register it.
	if _, err := a.Decode("", payload(t, "001-Notification.json")); err == nil || !strings.Contains(err.Error(), `unsupported Qwen Code event "Notification"`) {
		t.Errorf("Notification: %v", err)
	}
}

func TestShellExitCode(t *testing.T) {
	shell := func(native, body string) *loop.ToolResult {
		t.Helper()
		in := `{"hook_event_name":"` + native + `","session_id":"s","tool_name":"run_shell_command","tool_input":{"command":"x"},` + body + `}`
		ev, err := New().Decode("", []byte(in))
		if err != nil {
			t.Fatal(err)
		}
		return ev.Result
	}
	cases := []struct {
		r    *loop.ToolResult
		want *int
	}{
		{shell("PostToolUse", `"tool_response":{"llmContent":"Command: x\nOutput: no\nError: (none)\nExit Code: 2\nSignal: (none)"}`), loop.IntPtr(2)},
		{shell("PostToolUse", `"tool_response":{"llmContent":"Command: x\nExit Code: (none)\nSignal: 9"}`), nil},
		{shell("PostToolUse", `"tool_response":{"llmContent":"Directory: (root)\nOutput: Exit Code: 0 printed by the command\nExit Code: 1"}`), loop.IntPtr(1)},
		// The command printed a fake exit line of its own: the real one is last.
		{shell("PostToolUse", `"tool_response":{"llmContent":"Command: x\nOutput: Exit Code: 0\nExit Code: 0\nError: (none)\nExit Code: 1\nSignal: (none)"}`), loop.IntPtr(1)},
		// Killed: Qwen's trailer says "(none)"; the command's own exit line must not speak for it.
		{shell("PostToolUse", `"tool_response":{"llmContent":"Command: x\nDirectory: (root)\nOutput: done\nExit Code: 0\nSignal: (none)\nProcess Group PGID: 1\nError: (none)\nExit Code: (none)\nSignal: 9\nProcess Group PGID: 42"}`), nil},
		{shell("PostToolUse", `"tool_response":{"llmContent":"Command: x\nDirectory: (root)\nOutput: done\nExit Code: 0\nError: (none)\nExit Code: (none)\nSignal: 9\nProcess Group PGID: 42"}`), nil},
		// A signal with a number is still a kill.
		{shell("PostToolUse", `"tool_response":{"llmContent":"Command: x\nDirectory: (root)\nOutput: \nError: (none)\nExit Code: 0\nSignal: 15\nProcess Group PGID: 42"}`), nil},
		// A cancelled command has no trailer of Qwen's: what it printed is its own.
		{shell("PostToolUse", `"tool_response":{"llmContent":"Command was cancelled by user before it could complete. Below is the output before it was cancelled:\nExit Code: 0\nSignal: (none)\nProcess Group PGID: 1"}`), nil},
		{shell("PostToolUse", `"tool_response":{"llmContent":"Command timed out after 100ms before it could complete. Below is the output before it timed out:\nExit Code: 0\nSignal: (none)"}`), nil},
		// Qwen appends notes after its trailer (a long run's hint).
		{shell("PostToolUse", `"tool_response":{"llmContent":"Command: x\nDirectory: (root)\nOutput: ok\nError: (none)\nExit Code: 0\nSignal: (none)\nProcess Group PGID: 7\n\nNote: this foreground command ran for 90s."}`), loop.IntPtr(0)},
		// Output too large: Qwen keeps the head and the tail inside its truncation notice.
		{shell("PostToolUse", `"tool_response":{"llmContent":"Tool output was too large and has been truncated.\nThe full output has been saved to: /t/f\n\nTruncated part of the output:\nCommand: x\nDirectory: (root)\nOutput: a\n\n---\n... [CONTENT TRUNCATED] ...\n---\n\nz\nError: (none)\nExit Code: 3\nSignal: (none)\nProcess Group PGID: 7"}`), loop.IntPtr(3)},
		{shell("PostToolUseFailure", `"error":"Stdout: (empty)\nExit Code: 127\nSignal: (none)"`), loop.IntPtr(127)},
		{shell("PostToolUseFailure", `"error":"Exit Code: 1","is_interrupt":true`), nil},
	}
	for i, c := range cases {
		got := c.r.ExitCode
		if (got == nil) != (c.want == nil) || got != nil && *got != *c.want {
			show := func(p *int) any {
				if p == nil {
					return "unknown"
				}
				return *p
			}
			t.Errorf("case %d: exit code %v, want %v (%q)", i, show(got), show(c.want), c.r.Output)
		}
	}
	ev, _ := New().Decode("", []byte(`{"hook_event_name":"PostToolUse","tool_name":"write_file","tool_input":{"file_path":"a"},"tool_response":{"llmContent":"ok"}}`))
	if ev.Result.ExitCode == nil || *ev.Result.ExitCode != 0 {
		t.Errorf("a write that reached PostToolUse: %+v", ev.Result)
	}
}

func TestWritesAreTargets(t *testing.T) {
	for _, tool := range []string{"write_file", "edit"} {
		ev, err := New().Decode("", []byte(`{"hook_event_name":"PreToolUse","cwd":"/p","tool_name":"`+tool+`","tool_input":{"file_path":"sub/a.txt"}}`))
		if err != nil {
			t.Fatal(err)
		}
		if len(ev.TargetPaths) != 1 || ev.TargetPaths[0] != "/p/sub/a.txt" {
			t.Errorf("%s: tool %q targets %q", tool, ev.ToolName, ev.TargetPaths)
		}
	}
}

// Qwen Code answers in Claude Code's shapes: a refused stop is
// {"decision":"block","reason":...}, as the record shows it honoured.
func TestEncodeARefusedStop(t *testing.T) {
	ev, _ := New().Decode("", payload(t, "003-Stop.json"))
	out := New().Encode(ev, loop.Decision{Action: loop.Block, Reason: "run make check"})
	if string(out.Stdout) != `{"decision":"block","reason":"run make check"}`+"\n" || out.Exit != 0 {
		t.Errorf("stdout %q exit %d", out.Stdout, out.Exit)
	}
}

func TestOwnedPaths(t *testing.T) {
	got := Hooks.OwnedPaths("/home/u", nil)
	if strings.Join(got, " ") != ".qwen/settings.json .qwen/skills/ .qwen/commands/ .qwen/agents/ .qwen/hooks/ /home/u/.qwen/settings.json /home/u/.qwen/trustedFolders.json /home/u/.qwen/extensions/ /home/u/.qwen/skills/ /home/u/.qwen/commands/ /home/u/.qwen/agents/ /home/u/.qwen/hooks/" {
		t.Errorf("owned = %q", got)
	}
	// QWEN_HOME moves Qwen Code's user folder; QWEN_CODE_TRUSTED_FOLDERS_PATH
	// its trusted-folders file. Relative values name no fixed file: skipped.
	env := map[string]string{"QWEN_HOME": "/q", "QWEN_CODE_TRUSTED_FOLDERS_PATH": "/t/trust.json"}
	got = Hooks.OwnedPaths("/home/u", func(k string) string { return env[k] })
	if strings.Join(got, " ") != ".qwen/settings.json .qwen/skills/ .qwen/commands/ .qwen/agents/ .qwen/hooks/ /home/u/.qwen/settings.json /home/u/.qwen/trustedFolders.json /home/u/.qwen/extensions/ /home/u/.qwen/skills/ /home/u/.qwen/commands/ /home/u/.qwen/agents/ /home/u/.qwen/hooks/ /q/settings.json /q/trustedFolders.json /q/extensions/ /q/skills/ /q/commands/ /q/agents/ /q/hooks/ /t/trust.json" {
		t.Errorf("owned with env = %q", got)
	}
	env = map[string]string{"QWEN_HOME": "rel", "QWEN_CODE_TRUSTED_FOLDERS_PATH": "rel.json"}
	got = Hooks.OwnedPaths("/home/u", func(k string) string { return env[k] })
	if len(got) != 12 {
		t.Errorf("owned with relative env = %q", got)
	}
}

// FuzzDecode: the Qwen dialect never panics, errors are one line, answers valid JSON.
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "payloads", "*.json"))
	for _, p := range files {
		f.Add("", payload(f, filepath.Base(p)))
	}
	f.Add("PostToolUse", []byte(`{"tool_name":"run_shell_command","tool_response":{"llmContent":["Exit Code: 1"]}}`))
	a := New()
	f.Fuzz(func(t *testing.T, event string, input []byte) {
		adaptercheck.Check(t, a, event, input)
	})
}

// Qwen Code's read_file names its file in absolute_path: the guard refuses
// hook-loop's secrets to it only if the adapter passes that path on.
func TestReadFileAbsolutePathIsARead(t *testing.T) {
	in := `{"session_id":"s","cwd":"/proj","hook_event_name":"PreToolUse","tool_name":"read_file","tool_input":{"absolute_path":"/s/hook-loop/keys/k.key"}}`
	ev, err := New().Decode("", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.ReadPaths) != 1 || ev.ReadPaths[0] != "/s/hook-loop/keys/k.key" {
		t.Errorf("read_file: ReadPaths = %q", ev.ReadPaths)
	}
}
