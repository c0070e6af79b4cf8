package engine_test

import (
	"path/filepath"
	"testing"

	"github.com/hook-loop/hook-loop/loop"
)

// TestEvidenceOnlyFromTheCommandThatEarnedIt: in executing, where a passing
// `go test` is the evidence that moves the loop on, a test run whose failure
// `|| true` or `| tail` hid, or its name in another program's text, leaves the
// loop where it is; the test run's own 0 moves it.
func TestEvidenceOnlyFromTheCommandThatEarnedIt(t *testing.T) {
	f := newFixture(t, planLoop)
	f.handle(prompt("go"))
	f.handle(loop.HookEvent{Name: loop.EventPostToolUse, ToolName: "Write", TargetPaths: []string{filepath.Join(f.root, "PLAN.md")}})
	if s := f.session("s1").State; s != "executing" {
		t.Fatalf("state after PLAN.md = %s", s)
	}
	for _, cmd := range []string{
		`go test ./... || true`,
		`go test ./... 2>&1 | tail -5`,
		`grep -rn "go test" Makefile`,
		`git commit -m "go test passes"`,
	} {
		f.handle(bash(cmd, loop.IntPtr(0)))
		if s := f.session("s1"); s.State != "executing" || s.Evidence != 0 {
			t.Fatalf("%q exiting 0: state %s evidence %d, want executing and none", cmd, s.State, s.Evidence)
		}
	}
	f.handle(bash("go test ./...", loop.IntPtr(0)))
	if s := f.session("s1"); s.State != "verifying" || s.Evidence != 1 {
		t.Fatalf("after a passing go test: state %s evidence %d, want verifying and 1", s.State, s.Evidence)
	}
}
