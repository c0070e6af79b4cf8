package hook

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/adapters/claude"
)

// TestHugeRefusedCommandStaysRefused: a refused command longer than a log
// line may be is still refused. The refusal's record carried the whole
// command, its append failed, and the failure let the call run.
func TestHugeRefusedCommandStaysRefused(t *testing.T) {
	dir := twoStateProject(t)
	cmd := "rm hook-loop.json # " + strings.Repeat("x", 5<<20)
	in := `{"session_id":"s","cwd":"` + dir + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"` + cmd + `"}}`
	out := New(Deps{}).Run(context.Background(), Request{Adapter: claude.New(), Flags: Flags{Event: "PreToolUse", ConfigPath: filepath.Join(dir, "hook-loop.json")},
		Stdin: strings.NewReader(in), Cwd: dir})
	if !strings.Contains(string(out.Stdout), `"permissionDecision":"deny"`) {
		t.Fatalf("huge rm hook-loop.json answered %.300q (stderr %.300q), want a deny", out.Stdout, out.Stderr)
	}
}

// TestHugeRefusedPathStaysRefused: a refusal whose reason names a path longer
// than a log line may be (a write under .git/, a protected path, with a
// 5 MiB name) is still refused: the reason went into the refusal's record
// and the hook_fired one whole, their appends failed, and the failure let
// the call run.
func TestHugeRefusedPathStaysRefused(t *testing.T) {
	dir := twoStateProject(t)
	path := ".git/" + strings.Repeat("x", 5<<20)
	in := `{"session_id":"s","cwd":"` + dir + `","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"` + path + `","content":""}}`
	out := New(Deps{}).Run(context.Background(), Request{Adapter: claude.New(), Flags: Flags{Event: "PreToolUse", ConfigPath: filepath.Join(dir, "hook-loop.json")},
		Stdin: strings.NewReader(in), Cwd: dir})
	if !strings.Contains(string(out.Stdout), `"permissionDecision":"deny"`) {
		t.Fatalf("huge .git/ write answered %.300q (stderr %.300q), want a deny", out.Stdout, out.Stderr)
	}
}
