package dsl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/loop"
)

const exitNotLoop = `{"loop": {"id": "x", "initial_state": "a", "states": ["a", "b", "done", "stopped"],
  "events": ["pass", "fail"], "transitions": [{"from": "a", "event": "pass", "to": "b"}, {"from": "b", "event": "fail", "to": "a"}, {"from": "b", "event": "pass", "to": "done"}]},
 "codex": {"event_map": [
  {"codex_event": "PostToolUse", "when": {"tool_name": "Bash", "exit_code": 0}, "emit": "pass"},
  {"codex_event": "PostToolUse", "when": {"tool_name": "Bash", "exit_code_not": "0"}, "emit": "fail"}%s]}}`

func loadString(t *testing.T, text string) (*Spec, Diagnostics, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "hook-loop.json")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return Load(p)
}

// TestExitCodeNot: "exit_code_not": 0 matches a known failing exit code, and
// neither success nor an unknown exit code.
func TestExitCodeNot(t *testing.T) {
	spec, _, err := loadString(t, strings.Replace(exitNotLoop, "%s", "", 1))
	if err != nil {
		t.Fatal(err)
	}
	r := spec.EventMap[1]
	if r.When.ExitCodeNot == nil || *r.When.ExitCodeNot != 0 {
		t.Fatalf("exit_code_not not loaded: %+v", r.When)
	}
	ev := func(code *int) *loop.HookEvent {
		return &loop.HookEvent{Name: loop.EventPostToolUse, ToolName: "Bash", Command: "make test", Result: &loop.ToolResult{ExitCode: code}}
	}
	for _, c := range []struct {
		code *int
		want bool
	}{{loop.IntPtr(3), true}, {loop.IntPtr(1), true}, {loop.IntPtr(0), false}, {nil, false}} {
		if got := r.Matches(ev(c.code), nil, ""); got != c.want {
			t.Errorf("exit code %v: match %v, want %v", c.code, got, c.want)
		}
	}
	if d := r.Describe(); !strings.Contains(d, "that exits with a code other than 0") {
		t.Errorf("Describe() = %q", d)
	}
}

func TestExitCodeNotErrors(t *testing.T) {
	_, _, err := loadString(t, strings.Replace(strings.Replace(exitNotLoop, `"exit_code_not": "0"`, `"exit_code_not": 1.5`, 1), "%s", "", 1))
	if err == nil || !strings.Contains(err.Error(), "exit_code_not must be an integer") {
		t.Errorf("bad exit_code_not: %v", err)
	}
	_, diags, err := loadString(t, strings.Replace(exitNotLoop, "%s", `,
  {"codex_event": "Stop", "when": {"exit_code_not": 0}, "emit": "fail"}`, 1))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range diags {
		found = found || strings.Contains(d.Message, "exit_code_not")
	}
	if !found {
		t.Errorf("a Stop rule on exit_code_not is not reported: %v", diags)
	}
}
