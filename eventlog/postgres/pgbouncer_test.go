//go:build unix

package postgres_test

import (
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/eventlog/postgres"
	"github.com/hook-loop/hook-loop/testkit/pgtest"
)

// bouncerSettings are the [pgbouncer] settings docs/pgbouncer.md gives a fleet
// besides pool_mode = transaction: the store sends its timeouts as startup
// parameters, which PgBouncer refuses unless told to ignore them.
var bouncerSettings = map[string]string{
	"ignore_startup_parameters": "lock_timeout,statement_timeout,idle_in_transaction_session_timeout",
	"idle_transaction_timeout":  "300",
}

// counted is the smallest view a store keeps: how many events a session has.
type counted struct{ Events int }

func (v *counted) Fold(*eventlog.Event) { v.Events++ }

// Hooks of several agents write one project's log through PgBouncer in
// transaction pooling mode, more clients than server connections, each
// event on a connection of its own (one process per hook) or on one kept
// across events. Each reads its session's view and appends what follows it,
// as a hook does: every event reads back, numbered in order per session, on
// an intact chain.
func TestThroughPgBouncerTransactionPooling(t *testing.T) {
	srv := pgtest.Start(t, pgtest.Options{})
	bouncer := pgtest.StartBouncer(t, srv, pgtest.BouncerOptions{PoolSize: 2, Settings: bouncerSettings})
	const agents, events = 6, 8
	project := "fleet/" + t.Name()
	var wg sync.WaitGroup
	errs := make(chan error, agents*events)
	for a := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			session := fmt.Sprintf("agent-%d", a)
			// Odd agents keep one connection, so one client's transactions
			// meet different server connections; even ones connect per event.
			var kept *postgres.Store[counted, *counted]
			for n := range events {
				s := kept
				if s == nil {
					var err error
					if s, err = postgres.Open[counted](bouncer.URL(), postgres.Options{Project: project}); err != nil {
						errs <- err
						return
					}
				}
				err := s.Update(func(tx *postgres.Tx[counted, *counted]) error {
					_, err := tx.Append(eventlog.Event{SessionID: session, EventType: eventlog.TypeHookFired,
						Payload: map[string]any{"n": strconv.Itoa(tx.Session(session).Events)}})
					return err
				})
				if err != nil {
					errs <- fmt.Errorf("%s event %d: %w", session, n, err)
				}
				if a%2 == 1 {
					kept = s
				} else {
					s.Close()
				}
			}
			if kept != nil {
				kept.Close()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		t.Fatalf("PgBouncer's log:\n%s", bouncer.Log())
	}

	// Read back directly from the server, not through the PgBouncer.
	s, err := postgres.Open[counted](srv.URL(), postgres.Options{Project: project})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	next := map[string]int{}
	if err := s.Scan(nil, func(line int, e eventlog.Event) error {
		if want := strconv.Itoa(next[e.SessionID]); e.Payload["n"] != want {
			return fmt.Errorf("line %d: %s event %v, want %s", line, e.SessionID, e.Payload["n"], want)
		}
		next[e.SessionID]++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for a := range agents {
		if got := next[fmt.Sprintf("agent-%d", a)]; got != events {
			t.Errorf("agent-%d: %d events read back, want %d", a, got, events)
		}
	}
	rep, err := s.Verify()
	if err != nil {
		t.Fatal(err)
	}
	if rep.Events != agents*events || rep.BrokenLine != 0 || len(rep.Tampered) != 0 {
		t.Errorf("verify: %d events (want %d), broken line %d (%s), %d tampered", rep.Events, agents*events, rep.BrokenLine, rep.Reason, len(rep.Tampered))
	}

	// The events went through the PgBouncer in transaction pooling, its
	// clients taking turns on at most two server connections.
	pools, err := bouncer.Show("pgbouncer", "SHOW POOLS")
	if err != nil {
		t.Fatal(err)
	}
	servers, err := bouncer.Show("pgbouncer", "SHOW SERVERS")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pools {
		if p["database"] == "postgres" && p["pool_mode"] != "transaction" {
			t.Errorf("pool mode %q", p["pool_mode"])
		}
	}
	n := 0
	for _, sv := range servers {
		if sv["database"] == "postgres" {
			n++
		}
	}
	if n < 1 || n > 2 {
		t.Errorf("%d server connections to database postgres, want 1 or 2 (the pool)", n)
	}
}
