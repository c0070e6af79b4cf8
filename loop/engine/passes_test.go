package engine_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/sdk/hooks"
)

// chainLog is a lifecycle active at tool_requested that records, for each
// chain, whether it ran inside a transaction (locked) and the time its
// context left it; block makes it wait for its context's end.
type chainLog struct {
	block  bool
	inTx   *bool
	locked []bool
	left   []time.Duration
}

func (c *chainLog) Active(point string) bool { return point == hooks.PointToolRequested }

func (c *chainLog) Fire(ctx context.Context, _ string, _ any) []engine.LifecycleRecord {
	c.locked = append(c.locked, *c.inTx)
	left := time.Duration(-1)
	if dl, ok := ctx.Deadline(); ok {
		left = time.Until(dl)
	}
	c.left = append(c.left, left)
	if c.block {
		select {
		case <-ctx.Done():
		case <-time.After(time.Minute):
		}
	}
	return nil
}

// passes runs p with a pass that fires tool_requested under a context that
// is new at every pass (a session other events move meanwhile), so every
// staged pass misses; it returns the passes run and Run's error.
func passes(ctx context.Context, p engine.Passes, chains *chainLog) (int, error) {
	n := 0
	inTx := false
	chains.inTx = &inTx
	err := p.Run(ctx, func() error {
		n++
		inTx = true
		defer func() { inTx = false }()
		hctx, cancel := context.WithTimeout(ctx, p.Budget)
		defer cancel()
		f := hooks.Facts{LoopID: "l", SessionID: "s", State: fmt.Sprintf("working-%d", n)}
		p.Stage.Fire(hctx, hooks.PointToolRequested, hooks.NewToolRequested(f, "Bash", nil, "ls", nil))
		if p.Stage.Missed() {
			return engine.ErrStaged
		}
		return nil
	})
	return n, err
}

// Without a deadline, a chain that misses every pass runs unlocked until the
// last pass, which runs it under the lock.
func TestPassesWithoutDeadlineRunChainsUnlockedUntilTheLast(t *testing.T) {
	chains := &chainLog{}
	n, err := passes(context.Background(), engine.Passes{Stage: engine.NewStaged(chains), Budget: time.Second, LockWait: time.Second}, chains)
	if err != nil || n != engine.MaxStagedPasses {
		t.Fatalf("err %v after %d passes, want nil after %d", err, n, engine.MaxStagedPasses)
	}
	for i, locked := range chains.locked {
		if last := i == len(chains.locked)-1; locked != last {
			t.Fatalf("chain %d of %d ran locked=%v", i+1, len(chains.locked), locked)
		}
	}
	if len(chains.locked) != engine.MaxStagedPasses {
		t.Fatalf("%d chains ran, want %d", len(chains.locked), engine.MaxStagedPasses)
	}
}

// A deadline that leaves no room for the passes after an unlocked chain
// (two lock waits, the locked budget and a second) runs the chain in the
// first pass, under the lock and its budget; Inline does so whatever the
// deadline.
func TestPassesRunChainsInlineWithoutTimeForMore(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	for name, p := range map[string]engine.Passes{
		"deadline": {Budget: 100 * time.Millisecond, LockWait: time.Second},
		"inline":   {Budget: 100 * time.Millisecond, Inline: true},
	} {
		chains := &chainLog{}
		p.Stage = engine.NewStaged(chains)
		c := ctx
		if name == "inline" {
			c = context.Background()
		}
		n, err := passes(c, p, chains)
		if err != nil || n != 1 || len(chains.locked) != 1 || !chains.locked[0] {
			t.Fatalf("%s: err %v, %d passes, chains locked %v: want one pass running its chain locked", name, err, n, chains.locked)
		}
		if chains.left[0] > p.Budget {
			t.Errorf("%s: the chain under the lock had %v, more than its budget %v", name, chains.left[0], p.Budget)
		}
	}
}

// An unlocked chain gets what the deadline leaves once the passes after it
// are set aside, so a chain that takes all it is given still lets the
// decision come inside the deadline.
func TestPassesUnlockedChainLeavesTheReserve(t *testing.T) {
	const deadline = 3 * time.Second
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	chains := &chainLog{block: true}
	p := engine.Passes{Stage: engine.NewStaged(chains), Budget: 200 * time.Millisecond, LockWait: 100 * time.Millisecond}
	reserve := 2*p.LockWait + p.Budget + time.Second
	_, err := passes(ctx, p, chains)
	if err != nil {
		t.Fatal(err)
	}
	if len(chains.locked) < 2 || chains.locked[0] || !chains.locked[len(chains.locked)-1] {
		t.Fatalf("chains locked %v: want the first unlocked and the last locked", chains.locked)
	}
	if chains.left[0] > deadline-reserve {
		t.Errorf("the unlocked chain had %v, want at most %v (the deadline less the reserve)", chains.left[0], deadline-reserve)
	}
	if took := time.Since(start); took >= deadline {
		t.Errorf("decided after %v, past the %v deadline", took, deadline)
	}
}

// A context that has ended runs no pass: the error says so.
func TestPassesStopAtTheDeadline(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	chains := &chainLog{}
	n, err := passes(ctx, engine.Passes{Stage: engine.NewStaged(chains), Budget: time.Second}, chains)
	var late *engine.OutOfTimeError
	if n != 0 || !errors.As(err, &late) || !errors.Is(err, context.Canceled) {
		t.Fatalf("%d passes, err %v: want none and an OutOfTimeError for context.Canceled", n, err)
	}
}

// Without lifecycle hooks (no Staged) one pass decides, and its error is
// Run's.
func TestPassesWithoutStageRunOnce(t *testing.T) {
	boom := errors.New("boom")
	n := 0
	err := engine.Passes{Budget: time.Second}.Run(context.Background(), func() error {
		n++
		var s *engine.Staged
		if s.Missed() {
			t.Error("a nil Staged missed a point")
		}
		return boom
	})
	if n != 1 || err != boom {
		t.Fatalf("%d passes, err %v", n, err)
	}
}
