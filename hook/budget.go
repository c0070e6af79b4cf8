package hook

import (
	"context"
	"time"

	"github.com/hook-loop/hook-loop/loop"
)

// storeBudget is how long a hook for event may wait on a PostgreSQL store in
// all (connecting, the loop's lock, reads, committing), so that with the
// lifecycle time it allows inside the transaction (lifecycle) it answers
// within its harness's timeout: Codex clamps SessionEnd to 3 s, so there the
// store gets what the file's lock gets (sessionEndBudget); elsewhere
// StoreTimeout, and never past the hook's own deadline (ctx).
func storeBudget(ctx context.Context, event string, lifecycle time.Duration) time.Duration {
	b := StoreTimeout
	if event == loop.EventSessionEnd {
		b = sessionEndBudget
	}
	if dl, ok := ctx.Deadline(); ok {
		// What is left once the lifecycle hooks have had theirs, and a tenth
		// for the answer itself.
		left := time.Until(dl) - lifecycle
		left -= left / 10
		b = min(b, max(left, time.Millisecond))
	}
	return b
}
