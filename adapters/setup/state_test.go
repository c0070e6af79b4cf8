package setup

import (
	"strings"
	"testing"
)

func TestStateFinding(t *testing.T) {
	const dir = "/home/u/proj"
	const user = "/home/u/.local/state/hook-loop/projects/proj-0123456789ab/events.jsonl"
	t.Setenv("HOOK_LOOP_STATE_DIR", "/home/u/.local/state/hook-loop") // what --state user finds
	cases := []struct {
		args    []string
		sandbox string
		level   Level
		want    string
	}{
		{[]string{"hook-loop", "claude-hook"}, "", LevelOK, "lives in /home/u/proj/.hook-loop, inside the workspace: not covered"},
		{[]string{"hook-loop", "claude-hook", "--event-log", ".hook-loop/events.jsonl"}, "Claude Code sandbox.enabled", LevelOK, "inside the workspace: not covered"},
		{[]string{"hook-loop", "codex-hook", "--event-log", user}, "", LevelWarn, "outside the workspace, but no write sandbox is on: not covered"},
		{[]string{"hook-loop", "codex-hook", "--event-log", user}, "Codex sandbox_mode = workspace-write", LevelOK, "outside the workspace: writes covered by the sandbox (Codex sandbox_mode = workspace-write); reads are not"},
		{[]string{"hook-loop", "claude-hook", "--state", "user"}, "Claude Code sandbox.enabled", LevelOK, "/projects/proj-"},
		{[]string{"hook-loop", "codex-hook", "--event-log", "/tmp/state/events.jsonl"}, "Codex sandbox_mode = workspace-write", LevelWarn, "under the temporary directory"},
	}
	for _, c := range cases {
		f := StateFinding(c.args, dir, c.sandbox, "hook-loop codex install")
		if f.Level != c.level || !strings.Contains(f.What, c.want) {
			t.Errorf("%q sandbox %q: %+v, want %s %q", c.args, c.sandbox, f, c.level, c.want)
		}
	}
}

// TestStateFindingStateDirInsideTheWorkspace: when the user's state directory
// itself lies in the workspace, the advice is to move it, not --state user.
func TestStateFindingStateDirInsideTheWorkspace(t *testing.T) {
	t.Setenv("HOOK_LOOP_STATE_DIR", "/home/u/proj/.state")
	f := StateFinding([]string{"hook-loop", "claude-hook", "--state", "user"}, "/home/u/proj", "", "hook-loop claude install")
	if !strings.Contains(f.What, "inside the workspace") || !strings.Contains(f.Fix, "point HOOK_LOOP_STATE_DIR") {
		t.Errorf("%+v", f)
	}
}
