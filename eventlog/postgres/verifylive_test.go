package postgres

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hook-loop/hook-loop/testkit/pgtest"
)

// TestVerifyWhileHooksWrite: `log verify` on a store that hooks are writing to
// reads one snapshot. Before, it read the events page by page and the views
// afterwards, so a transaction committed in between made a sound log look
// tampered ("the view of session … records N events …; the log has N-2").
func TestVerifyWhileHooksWrite(t *testing.T) {
	srv := pgtest.Start(t, pgtest.Options{})
	var stop atomic.Bool
	var wg sync.WaitGroup
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := openStore(t, srv.URL(), "live")
			for i := 0; !stop.Load(); i++ {
				if err := s.Update(func(tx *testTx) error { return transition(tx, fmt.Sprintf("w%d", w)) }); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	defer func() { stop.Store(true); wg.Wait() }()
	v := openStore(t, srv.URL(), "live")
	for i := 0; i < 60; i++ {
		r, err := v.Verify()
		if err != nil {
			t.Fatal(err)
		}
		if !r.OK() {
			t.Fatalf("verify %d of a sound log being written: %+v", i, r)
		}
	}
}
