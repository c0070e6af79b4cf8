package engine

import (
	"context"
	"errors"
	"time"
)

// Passes runs the staged passes of one decision — a hook's event, a person's
// action — so that both keep the same promise: chains run between
// transactions while the deadline leaves room for the passes after them, and
// under the lock, within Budget, once it does not.
type Passes struct {
	// Stage stages the engine's lifecycle chains; nil when there are none.
	Stage *Staged
	// Budget caps the chains a pass runs under the lock.
	Budget time.Duration
	// LockWait is the longest one transaction waits for the log's lock (the
	// store's own: Store.LockWait).
	LockWait time.Duration
	// Inline runs every chain under the lock in the first pass: an event
	// whose harness allows no time for a second one (Codex's SessionEnd).
	Inline bool
}

// OutOfTimeError is ctx's error when it ended before a pass could start: no
// transaction was run for it. Error and Unwrap are ctx's error's.
type OutOfTimeError struct{ Err error }

func (e *OutOfTimeError) Error() string { return e.Err.Error() }
func (e *OutOfTimeError) Unwrap() error { return e.Err }

// Run calls pass, one transaction of the log, until it returns anything but
// ErrStaged (which pass returns, rolling back, when Stage.Missed), running the
// missed chain unlocked between passes. It returns pass's last error, or an
// *OutOfTimeError once ctx has ended.
func (p Passes) Run(ctx context.Context, pass func() error) error {
	// What the passes still to come may need once a chain has run unlocked:
	// a staged pass's lock wait, then a last pass's lock wait and its chains
	// under the lock. Past it every pass is the last, so the decision comes
	// inside ctx's deadline whatever the chains or the lock do.
	reserve := 2*p.LockWait + p.Budget + time.Second
	inline := p.Inline // the next pass runs its chains under the lock
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			return &OutOfTimeError{Err: err}
		}
		if p.Stage != nil {
			p.Stage.Begin(inline || n == MaxStagedPasses || timeLeft(ctx) < reserve)
		}
		err := pass()
		if !errors.Is(err, ErrStaged) || p.Stage == nil {
			return err
		}
		if timeLeft(ctx)-reserve < p.Budget {
			// Unlocked, the chain would get less than it has under the lock:
			// its executors would fail for want of time, and a required hook
			// would hold the session for nothing.
			inline = true
			continue
		}
		lctx, cancel := unlockedLifecycle(ctx, reserve)
		p.Stage.RunMissed(lctx)
		cancel()
	}
}

// unlockedLifecycle bounds a chain run between passes: its executors get their
// own timeoutSeconds, within what ctx's deadline leaves once reserve (the
// passes still to come) is set aside.
func unlockedLifecycle(ctx context.Context, reserve time.Duration) (context.Context, context.CancelFunc) {
	dl, ok := ctx.Deadline()
	if !ok {
		return context.WithCancel(ctx)
	}
	return context.WithDeadline(ctx, dl.Add(-reserve))
}

// timeLeft is what ctx's deadline leaves (a day without one).
func timeLeft(ctx context.Context) time.Duration {
	dl, ok := ctx.Deadline()
	if !ok {
		return 24 * time.Hour
	}
	return time.Until(dl)
}
