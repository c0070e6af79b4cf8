package engine

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/hook-loop/hook-loop/sdk/hooks"
)

// A lifecycle executor may take seconds (an evaluator asking a model), and the
// event log's lock is shared by every session of the project: executors
// therefore run between transactions. A pass of the engine runs under the
// lock with the answers known so far; at the first point it has no answer
// for, the pass is rolled back (ErrStaged), that point's chain runs unlocked,
// and the event is decided again. The pass that needs nothing new commits, so
// every decision is applied once, atomically, against the log as it is then —
// a point whose context changed meanwhile (another event of the session moved
// it) is asked again with the context it now has.

// ErrStaged rolls back a pass that met a point it has no answer for.
var ErrStaged = errors.New("a lifecycle point must run outside the log's lock")

// MaxStagedPasses bounds the passes of one event: each pass runs at most one
// chain, and an event fires a handful of points; past it (a session moved by
// other events at every pass) the chains run under the lock, within
// a short budget, as they must be answered somehow.
const MaxStagedPasses = 12

// stagedAnswer is what one chain did to one context: the context after it, and
// the records to log.
type stagedAnswer struct {
	after []byte
	recs  []LifecycleRecord
}

// Staged is the engine's Lifecycle during staged passes: the hook runner's
// and a person's controls alike. Use it from one goroutine.
type Staged struct {
	inner   Lifecycle
	answers map[string]stagedAnswer
	// missed is the first point of this pass without an answer (and its
	// context as JSON); later points of the pass are not run.
	missed      string
	missedPoint string
	// inline: run a missing chain at once, under the lock (the last pass).
	inline bool
}

// NewStaged stages inner's chains.
func NewStaged(inner Lifecycle) *Staged {
	return &Staged{inner: inner, answers: map[string]stagedAnswer{}}
}

// Begin starts a pass; inline (the last pass) runs a missing chain at once.
func (s *Staged) Begin(inline bool) {
	s.missed, s.missedPoint, s.inline = "", "", inline
}

func (s *Staged) Fire(ctx context.Context, point string, c any) []LifecycleRecord {
	if a, ok := s.inner.(interface{ Active(string) bool }); ok && !a.Active(point) {
		// No executor runs here: nothing to stage, no pass to repeat.
		return s.inner.Fire(ctx, point, c)
	}
	b, err := json.Marshal(c)
	if err != nil {
		return s.inner.Fire(ctx, point, c)
	}
	key := point + "\x00" + string(b)
	if a, ok := s.answers[key]; ok {
		if err := json.Unmarshal(a.after, c); err != nil {
			return s.inner.Fire(ctx, point, c)
		}
		return a.recs
	}
	if s.inline {
		return s.inner.Fire(ctx, point, c)
	}
	if s.missed == "" {
		s.missed, s.missedPoint = key, point
	}
	// The pass is rolled back; what it does with the defaults is never kept.
	return nil
}

// Missed reports whether this pass met a point it had no answer for: its
// transaction must be rolled back (ErrStaged) and RunMissed called. A nil
// Staged (no lifecycle hooks) misses nothing.
func (s *Staged) Missed() bool { return s != nil && s.missed != "" }

// ExecutorFiles are the wrapped runner's (the files its executors run from,
// which the guard protects), so that what sees a Staged sees them too.
func (s *Staged) ExecutorFiles() []string {
	if r, ok := s.inner.(interface{ ExecutorFiles() []string }); ok {
		return r.ExecutorFiles()
	}
	return nil
}

// RunMissed runs the chain the last pass missed, outside the lock, and keeps
// its answer for the next pass.
func (s *Staged) RunMissed(ctx context.Context) {
	key, point := s.missed, s.missedPoint
	p, ok := hooks.Lookup(point)
	if !ok {
		return
	}
	c := p.New()
	if err := json.Unmarshal([]byte(key[len(point)+1:]), c); err != nil {
		return
	}
	recs := s.inner.Fire(ctx, point, c)
	after, err := json.Marshal(c)
	if err != nil {
		return
	}
	s.answers[key] = stagedAnswer{after: after, recs: recs}
}
