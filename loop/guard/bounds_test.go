package guard

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/loop"
)

// TestTooManyPathsRefused: a call whose input names more paths than the guard
// judges in one call is refused, not judged for longer than the harness waits
// (8 MiB of {"cmd": [["a0"], ["a1"], ...]} named 700,000 and took 34 s, and
// the harness let the call run); one at the cap is judged as usual.
func TestTooManyPathsRefused(t *testing.T) {
	p := launchProject(t, false, false)
	paths := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("gen/f%d.txt", i)
		}
		return out
	}
	ev := loop.HookEvent{Name: loop.EventPreToolUse, ToolName: "mcp__fs__write_many", Cwd: p.Root, TargetPaths: paths(maxCallPaths)}
	if got := p.Check(&ev, p.Read(&ev), "a"); got.Blocked {
		t.Errorf("%d paths: refused (%s)", maxCallPaths, got.Reason)
	}
	ev.TargetPaths[maxCallPaths-1] = "hook-loop.json"
	if got := p.Check(&ev, p.Read(&ev), "a"); !got.Blocked || got.Rule != "loop_file" {
		t.Errorf("%d paths, the last hook-loop.json: %+v, want loop_file", maxCallPaths, got)
	}
	ev.TargetPaths, ev.ReadPaths = paths(maxCallPaths/2), paths(maxCallPaths/2+1)
	got := p.Check(&ev, p.Read(&ev), "a")
	if !got.Blocked || got.Rule != "too_many_paths" || !strings.Contains(got.Reason, "4097 paths") {
		t.Errorf("%d paths: %+v, want too_many_paths", maxCallPaths+1, got)
	}
}
