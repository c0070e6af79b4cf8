package postgres

import (
	"context"
	"time"
)

// waits is what one Update or View may still wait on the database: every
// statement draws on one budget (Options.Budget), so the hook's answer comes
// within it however the time is lost — a slow connect, a held lock, slow
// reads. fn's own work between statements is not counted: the engine bounds
// the lifecycle hooks it runs there itself. Storing and committing keep a
// reserve, so a lock wait that used all it could still leaves time to commit.
type waits struct {
	left    time.Duration
	reserve time.Duration
}

func newWaits(budget time.Duration) *waits {
	return &waits{left: budget, reserve: budget / 4}
}

// next returns the context of one wait (final: storing and committing, which
// may use the reserve) and the function that ends it, counting its time. The
// function may be called more than once. A nil w (a transaction Migrate runs,
// which takes as long as the log) gives each wait Timeout.
func (w *waits) next(final bool) (context.Context, func()) {
	if w == nil {
		return context.WithTimeout(context.Background(), Timeout)
	}
	d := w.left
	if !final {
		d -= w.reserve
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), max(d, 0))
	ended := false
	return ctx, func() {
		if ended {
			return
		}
		ended = true
		cancel()
		w.left -= time.Since(start)
	}
}

// lockWait is how long to wait for the loop's lock when d is left before the
// reserve: most of it, the rest to read the views once the lock is held.
func lockWait(d time.Duration) time.Duration {
	return max(d*4/5, time.Millisecond)
}
