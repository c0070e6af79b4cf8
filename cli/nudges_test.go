package cli

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/nudge"
)

// runNudges' stop returns only once a Check in flight has ended, so notify
// and board --all never close the fleet under a look at it.
func TestRunNudgesStopWaitsForACheckInFlight(t *testing.T) {
	var calls, finished atomic.Int32
	entered := make(chan struct{})
	look := func() []nudge.Look {
		if calls.Add(1) == 2 { // the first look is Prime's
			close(entered)
			time.Sleep(200 * time.Millisecond)
			finished.Store(1)
		}
		return nil
	}
	wake, stop := runNudges(context.Background(), &nudge.Notifier{}, look)
	wake()
	<-entered
	stop()
	if finished.Load() != 1 {
		t.Fatal("stop returned while a Check was still looking")
	}
	wake() // after stop: nothing runs, nothing blocks
	if calls.Load() != 2 {
		t.Fatalf("look called %d times, want 2", calls.Load())
	}
}
