package gallery

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/loop"
	"github.com/hook-loop/hook-loop/loop/dsl"
)

func TestNamesAndGet(t *testing.T) {
	names := Names()
	for _, want := range []string{"plan_execute", "software_delivery"} {
		if !slices.Contains(names, want) {
			t.Errorf("Names() = %v, missing %s", names, want)
		}
	}
	if !slices.Contains(names, Default) {
		t.Errorf("default profile %q not embedded", Default)
	}
	if _, err := Get("plan_execute.json"); err != nil {
		t.Error(err)
	}
	for _, bad := range []string{"", "nope", "../gallery"} {
		if _, err := Get(bad); err == nil || !strings.Contains(err.Error(), "plan_execute") {
			t.Errorf("Get(%q) error %v should list the names", bad, err)
		}
	}
}

// TestEveryLoopLoads validates every embedded loop with the real loader: no
// error, and no warning either (the project's own examples must be clean).
func TestEveryLoopLoads(t *testing.T) {
	dir := t.TempDir()
	for _, name := range Names() {
		b, _ := Get(name)
		p := filepath.Join(dir, name+".json")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		spec, diags, err := dsl.Load(p)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		for _, d := range diags {
			t.Errorf("%s: diagnostic %v", name, d)
		}
		if spec.Definition.ID != name {
			t.Errorf("%s: loop id %q", name, spec.Definition.ID)
		}
		for _, s := range spec.Definition.States {
			if !spec.Definition.IsTerminal(s) && spec.Definition.Instructions[s] == "" {
				t.Errorf("%s: non-terminal state %s has no instructions", name, s)
			}
		}
	}
}

// TestPlanExecuteVerificationRules: a verification command that exits 0 emits
// step_done, one that exits with any other known code emits step_failed, and
// one whose exit code is unknown emits nothing.
func TestPlanExecuteVerificationRules(t *testing.T) {
	b, _ := Get("plan_execute")
	p := filepath.Join(t.TempDir(), "plan_execute.json")
	os.WriteFile(p, b, 0o644)
	spec, _, err := dsl.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	emits := func(code *int) []string {
		ev := &loop.HookEvent{Name: loop.EventPostToolUse, ToolName: "Bash", Command: "make test", Result: &loop.ToolResult{ExitCode: code}}
		var out []string
		for i := range spec.EventMap {
			if r := &spec.EventMap[i]; r.Matches(ev, ev.TargetPaths, "") && r.Emit != "" {
				out = append(out, r.Emit)
			}
		}
		return out
	}
	for _, c := range []struct {
		code *int
		want string
	}{{loop.IntPtr(0), "step_done"}, {loop.IntPtr(1), "step_failed"}, {loop.IntPtr(3), "step_failed"}, {nil, ""}} {
		if got := strings.Join(emits(c.code), ","); got != c.want {
			t.Errorf("exit %v: emits %q, want %q", c.code, got, c.want)
		}
	}
}
