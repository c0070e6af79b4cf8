package engine_test

import (
	"context"
	"testing"

	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/sdk/hooks"
)

// refuser refuses every tool call; it runs at tool_requested only.
type refuser struct{ calls int }

func (r *refuser) Active(point string) bool { return point == hooks.PointToolRequested }

func (r *refuser) Fire(_ context.Context, point string, c any) []engine.LifecycleRecord {
	t, ok := c.(*hooks.ToolRequestedContext)
	if !ok {
		return nil
	}
	r.calls++
	t.Proceed, t.Reason = false, "no"
	return []engine.LifecycleRecord{{Type: "hooks.refused", Payload: map[string]any{"point": point}}}
}

// A staged pass never runs a chain: it marks the first point it has no answer
// for; the chain runs once, outside, and the next pass applies its answer.
func TestStagedRunsAChainOnceAndAppliesItLater(t *testing.T) {
	ctx := context.Background()
	inner := &refuser{}
	s := engine.NewStaged(inner)
	f := hooks.Facts{LoopID: "l", SessionID: "s", State: "working"}

	s.Begin(false)
	c := hooks.NewToolRequested(f, "Bash", nil, "ls", nil)
	if recs := s.Fire(ctx, hooks.PointToolRequested, c); recs != nil || !s.Missed() || !c.Proceed || inner.calls != 0 {
		t.Fatalf("first pass: records %v missed %v proceed %v calls %d", recs, s.Missed(), c.Proceed, inner.calls)
	}
	s.RunMissed(ctx)
	if inner.calls != 1 {
		t.Fatalf("the chain ran %d times, want 1", inner.calls)
	}

	s.Begin(false)
	c = hooks.NewToolRequested(f, "Bash", nil, "ls", nil)
	recs := s.Fire(ctx, hooks.PointToolRequested, c)
	if s.Missed() || c.Proceed || c.Reason != "no" || len(recs) != 1 || inner.calls != 1 {
		t.Fatalf("second pass: records %v missed %v context %+v calls %d", recs, s.Missed(), c, inner.calls)
	}
	// A point no executor handles is not staged.
	if s.Fire(ctx, hooks.PointPhaseChanged, hooks.NewPhaseChanged(f, "a", "b", "e", false)); s.Missed() {
		t.Fatal("an inactive point was staged")
	}
	// A context that changed meanwhile is asked again.
	f.State = "reviewing"
	if s.Fire(ctx, hooks.PointToolRequested, hooks.NewToolRequested(f, "Bash", nil, "ls", nil)); !s.Missed() {
		t.Fatal("a changed context reused an answer given for another")
	}
	// The last pass runs what it misses at once.
	s.Begin(true)
	c = hooks.NewToolRequested(f, "Bash", nil, "make", nil)
	if s.Fire(ctx, hooks.PointToolRequested, c); s.Missed() || c.Proceed || inner.calls != 2 {
		t.Fatalf("inline pass: missed %v context %+v calls %d", s.Missed(), c, inner.calls)
	}
}

type withFiles struct{ refuser }

func (withFiles) ExecutorFiles() []string { return []string{"/hooks/check.py"} }

// The guard protects the executors' files of whatever lifecycle the engine
// holds: a Staged must not hide them.
func TestStagedForwardsExecutorFiles(t *testing.T) {
	s := engine.NewStaged(&withFiles{})
	if got := s.ExecutorFiles(); len(got) != 1 || got[0] != "/hooks/check.py" {
		t.Errorf("ExecutorFiles = %q", got)
	}
	if got := engine.NewStaged(&refuser{}).ExecutorFiles(); got != nil {
		t.Errorf("without executor files: %q", got)
	}
}
