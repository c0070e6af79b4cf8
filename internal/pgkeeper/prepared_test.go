//go:build linux

package pgkeeper_test

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/eventlog/postgres"
	"github.com/jackc/pgx/v5/pgconn"
)

// asPgConn makes a pgconn of a loan, as the keeper does.
func asPgConn(t *testing.T, l *postgres.Loan) *pgconn.PgConn {
	t.Helper()
	cfg, err := pgconn.ParseConfig("host=/nonexistent sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	pc, err := pgconn.Construct(&pgconn.HijackedConn{
		Conn: l.Conn, PID: l.PID, SecretKey: l.SecretKey, ParameterStatuses: l.Params,
		TxStatus: 'I', Config: cfg, CustomData: map[string]any{},
	})
	if err != nil {
		t.Fatal(err)
	}
	return pc
}

// viewOrd runs the lent view statement for project p's project
// row and returns its ord ("" when there is no row).
func viewOrd(t *testing.T, pc *pgconn.PgConn) string {
	t.Helper()
	res := pc.ExecPrepared(context.Background(), postgres.StatementName("view"), [][]byte{[]byte("p"), {}, {}}, nil, nil).Read()
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if len(res.Rows) == 0 {
		return ""
	}
	return string(res.Rows[0][0])
}

// TestPreparedStatementsKeptAndVouchedFor: a loan carries the store's
// statements prepared (it saves the server parsing and planning them on every
// hook), and only as the keeper prepared them: a borrower that prepares
// another statement under one of their names (here one returning a forged
// view row) gives back a connection whose statements the keeper prepares
// afresh.
func TestPreparedStatementsKeptAndVouchedFor(t *testing.T) {
	e := setup(t, time.Minute)
	e.startKeeper()
	key := e.store().LendKey()
	var loan *postgres.Loan
	e.eventually("a loan", func() bool {
		l, err := e.c.Borrow(context.Background(), key)
		loan = l
		return err == nil
	})
	// Nothing else to lend: the next loan is this backend again.
	for {
		l, err := e.c.Borrow(context.Background(), key)
		if err != nil {
			break
		}
		l.Conn.Close()
	}
	view := postgres.StatementName("view")
	if !slices.Contains(loan.Prepared, view) {
		t.Fatalf("loan carries %v, want the store's statements", loan.Prepared)
	}
	pc := asPgConn(t, loan)
	real := viewOrd(t, pc)
	ctx := context.Background()
	if _, err := pc.Exec(ctx, `DEALLOCATE `+view).ReadAll(); err != nil {
		t.Fatal(err)
	}
	forged := `SELECT 4242::bigint, 0::bigint, 0::bigint, ''::text, '{}'::jsonb, ''::text WHERE $1::text IS NOT NULL AND $2::text IS NOT NULL AND $3::text IS NOT NULL`
	if _, err := pc.Prepare(ctx, view, forged, nil); err != nil {
		t.Fatal(err)
	}
	if got := viewOrd(t, pc); got != "4242" {
		t.Fatalf("the forged statement reads ord %q, want 4242 (the test's forgery did not take)", got)
	}
	pid := pc.PID()
	hc, err := pc.Hijack()
	if err != nil {
		t.Fatal(err)
	}
	e.c.Give(key, &postgres.Loan{Conn: hc.Conn, PID: hc.PID, SecretKey: hc.SecretKey, Params: hc.ParameterStatuses})
	var again *postgres.Loan
	e.eventually("the connection lent again", func() bool {
		l, err := e.c.Borrow(context.Background(), key)
		again = l
		return err == nil
	})
	if again.PID != pid {
		t.Fatalf("lent backend %d, want %d again", again.PID, pid)
	}
	if !slices.Contains(again.Prepared, view) {
		t.Fatalf("loan carries %v, want the store's statements", again.Prepared)
	}
	pc = asPgConn(t, again)
	defer pc.Close(ctx)
	if got := viewOrd(t, pc); got != real {
		t.Fatalf("lent view statement reads ord %q (the forged statement's is 4242), want %q", got, real)
	}
	if _, err := strconv.Atoi(real); real != "" && err != nil {
		t.Fatalf("ord %q", real)
	}
}
