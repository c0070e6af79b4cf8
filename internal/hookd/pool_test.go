//go:build linux

package hookd

import (
	"bytes"
	"context"
	"net"
	"os"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/eventlog/postgres"
	"github.com/hook-loop/hook-loop/internal/hookd/wire"
	"github.com/hook-loop/hook-loop/internal/testkit/pgtest"
	"github.com/jackc/pgx/v5"
)

func TestPoolLendsWhatItWasGiven(t *testing.T) {
	p := newPool()
	if _, err := p.Borrow(context.Background(), "k"); err == nil {
		t.Fatal("an empty pool lent a connection")
	}
	var conns []net.Conn
	for range poolMax + 1 {
		a, b := net.Pipe()
		defer b.Close()
		conns = append(conns, a)
		p.Give("k", &postgres.Loan{Conn: a, PID: uint32(len(conns))})
	}
	// Past poolMax a given connection is closed, not kept.
	if _, err := conns[poolMax].Write([]byte("x")); err == nil {
		t.Error("the connection past poolMax was kept open")
	}
	l, err := p.Borrow(context.Background(), "k")
	if err != nil || l.PID != poolMax {
		t.Fatalf("borrow: %+v %v (want the last kept)", l, err)
	}
	if _, err := p.Borrow(context.Background(), "other"); err == nil {
		t.Error("a connection lent for another key")
	}
	p.idle["k"][0].since = time.Now().Add(-poolIdle - time.Second)
	if l, err := p.Borrow(context.Background(), "k"); err == nil {
		t.Errorf("a connection idle past poolIdle was lent: %+v", l)
	}
}

// Through the server, a PostgreSQL store answers as the hook does and keeps
// one warm connection for the next hooks, not one per hook.
func TestServerKeepsItsDatabaseConnection(t *testing.T) {
	srv := pgtest.Start(t, pgtest.Options{})
	t.Setenv("HOOK_LOOP_PG_KEEPER", "off")
	cfg, dir := project(t)
	ask := served(t)
	for i, event := range []string{"UserPromptSubmit", "PreToolUse", "Stop", "Stop"} {
		a, started := ask(wire.Request{Harness: "codex", Args: []string{"--event", event, "--config", cfg, "--store", srv.URL()},
			Cwd: dir, Env: wire.EnvDigest(os.Environ()), Stdin: payload(t, event, dir)})
		if !started || a.Status != wire.Answered {
			t.Fatalf("%s: started=%v %+v", event, started, a)
		}
		if event == "Stop" && !bytes.Contains(a.Stdout, []byte(`"decision":"block"`)) {
			t.Fatalf("stop %d on the database: %s / %s", i, a.Stdout, a.Stderr)
		}
	}
	conn, err := pgx.Connect(context.Background(), srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Errorf("%d connections after four hooks, want the server's one", n)
	}
}

// The database going away under the server's kept connection: while it is
// down the hook answers as the store fails (one line naming the database,
// within the store's budget), and once it is back the kept connection is
// replaced and hooks are answered as before.
func TestServerOutlivesADatabaseRestart(t *testing.T) {
	srv := pgtest.Start(t, pgtest.Options{})
	t.Setenv("HOOK_LOOP_PG_KEEPER", "off")
	cfg, dir := project(t)
	ask := served(t)
	stop := func() wire.Answer {
		t.Helper()
		a, started := ask(wire.Request{Harness: "codex", Args: []string{"--event", "Stop", "--config", cfg, "--store", srv.URL()},
			Cwd: dir, Env: wire.EnvDigest(os.Environ()), Stdin: payload(t, "Stop", dir)})
		if !started || a.Status != wire.Answered {
			t.Fatalf("stop: started=%v %+v", started, a)
		}
		return a
	}
	if a := stop(); !bytes.Contains(a.Stdout, []byte(`"decision":"block"`)) {
		t.Fatalf("stop before: %s / %s", a.Stdout, a.Stderr)
	}
	srv.Stop()
	start := time.Now()
	a := stop()
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("with the database down the hook took %v", took)
	}
	if !bytes.Contains(a.Stderr, []byte("127.0.0.1")) {
		t.Errorf("with the database down, stderr does not name it: %s", a.Stderr)
	}
	srv.Restart()
	if a := stop(); !bytes.Contains(a.Stdout, []byte(`"decision":"block"`)) || bytes.Contains(a.Stderr, []byte("hook-loop: ")) && bytes.Contains(a.Stderr, []byte("connect")) {
		t.Errorf("stop after the restart: %s / %s", a.Stdout, a.Stderr)
	}
}
