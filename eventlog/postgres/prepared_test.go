package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/hook-loop/hook-loop/internal/testkit/pgtest"
	"github.com/jackc/pgx/v5/pgconn"
)

// testLender lends a new connection on every borrow, with the store's
// statements prepared on it or not, and says in Loan.Prepared that they are.
type testLender struct {
	t       *testing.T
	url     string
	prepare bool
	lent    int
}

func (l *testLender) Borrow(ctx context.Context, _ string) (*Loan, error) {
	pc, err := pgconn.Connect(ctx, l.url)
	if err != nil {
		return nil, err
	}
	var names []string
	for name, sql := range Statements() {
		if l.prepare {
			if _, err := pc.Prepare(ctx, name, sql, nil); err != nil {
				l.t.Error(err)
			}
		}
		names = append(names, name)
	}
	hc, err := pc.Hijack()
	if err != nil {
		return nil, err
	}
	l.lent++
	return &Loan{Conn: hc.Conn, PID: hc.PID, SecretKey: hc.SecretKey, Params: hc.ParameterStatuses, Prepared: names}, nil
}

func (l *testLender) Give(_ string, loan *Loan) { _ = loan.Conn.Close() }

// TestLentPreparedStatements: a store runs its transactions through the
// statements a loan says are prepared (by name), and when the server does not
// know them (the lender was wrong) it runs them unnamed instead of failing.
func TestLentPreparedStatements(t *testing.T) {
	srv := pgtest.Start(t, pgtest.Options{})
	openStore(t, srv.URL(), "migrate").Update(func(*Tx) error { return nil })
	for _, prepare := range []bool{true, false} {
		t.Run(fmt.Sprintf("prepared=%v", prepare), func(t *testing.T) {
			project := fmt.Sprintf("lent-%v", prepare)
			for i := 0; i < 3; i++ {
				l := &testLender{t: t, url: srv.URL(), prepare: prepare}
				s, err := Open(srv.URL(), Options{Project: project, Lender: l})
				if err != nil {
					t.Fatal(err)
				}
				s.Expect("a")
				if err := s.Update(func(tx *Tx) error {
					var runs int64
					if err := tx.tx.QueryRow(context.Background(), `SELECT coalesce(sum(generic_plans + custom_plans), 0) FROM pg_prepared_statements WHERE name = $1`, StatementName("lock")).Scan(&runs); err != nil {
						return err
					}
					if prepare && runs != 1 {
						return fmt.Errorf("the lock statement ran %d times by name, want 1", runs)
					}
					return transition(tx, "a")
				}); err != nil {
					t.Fatal(err)
				}
				if err := s.View(func(tx *Tx) error {
					if n := tx.Project().Transitions; n != i+1 {
						return fmt.Errorf("%d transitions, want %d", n, i+1)
					}
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				s.Close()
				if l.lent != 1 {
					t.Fatalf("%d loans, want 1", l.lent)
				}
			}
			v := openStore(t, srv.URL(), project)
			r, err := v.Verify()
			if err != nil || !r.OK() {
				t.Fatalf("log does not verify: %v %+v", err, r)
			}
		})
	}
}

func TestNotifyPayloadIsJSONMarshal(t *testing.T) {
	for _, loop := range []string{"", "review", `a "quoted" <b> & c`, "naïve\u2028\x01"} {
		want, _ := json.Marshal(struct {
			Loop string `json:"loop"`
			Seq  int64  `json:"seq"`
		}{loop, 12345})
		if got := notifyPayload(loop, 12345); got != string(want) {
			t.Fatalf("notifyPayload(%q) = %s, want %s", loop, got, want)
		}
	}
}

// TestStatementNamesFollowTheirText: a lent statement is used only under the
// name its current text has, so a keeper started by another build (whose
// statements differ) never has a changed statement run under an old name.
func TestStatementNamesFollowTheirText(t *testing.T) {
	all := Statements()
	if len(all) != len(statements) {
		t.Fatalf("%d names for %d statements", len(all), len(statements))
	}
	old := StatementName("view") + "0" // another text's digest
	got := preparedNames([]string{StatementName("view"), old, "hook_loop_view_000000000000"})
	if len(got) != 1 || got[viewSQL] != StatementName("view") {
		t.Fatalf("preparedNames = %v, want only the current view statement", got)
	}
}
