//go:build unix

package postgres

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/loop/session"
	"github.com/hook-loop/hook-loop/testkit/benchgen"
	"github.com/hook-loop/hook-loop/testkit/pgtest"
	"github.com/jackc/pgx/v5"
)

const benchFocus = "019a2b6c-7f3e-7c21-9d55-000000000003"

// logTx is what eventlog.Tx and Tx have in common.
type logTx interface {
	Session(id string) session.View
	Project() session.View
	Append(e eventlog.Event) (eventlog.Event, error)
}

// hookWork is one hook's log work on either backend: recover the session and
// the project, decide, append two events.
func hookWork(tx logTx) error {
	_ = tx.Project()
	s := tx.Session(benchFocus)
	for _, e := range []eventlog.Event{
		{SessionID: benchFocus, RunID: "run-1", State: s.State, EventType: eventlog.TypeHookFired, Actor: "codex",
			Payload: map[string]any{"codex_event": "PostToolUse", "tool_name": "Bash", "command": "go test ./...", "exit_code": 0}},
		{SessionID: benchFocus, RunID: "run-1", State: s.State, EventType: eventlog.TypeEvidenceRegistered, Actor: "hook-loop",
			Payload: map[string]any{"kind": "test_pass"}},
	} {
		if _, err := tx.Append(e); err != nil {
			return err
		}
	}
	return nil
}

// BenchmarkUpdateAppend compares one hook's Update (read session and project,
// append two events) on the JSONL log and on PostgreSQL over loopback TCP, at
// 10k events (and 1M with EVENTLOG_BENCH_1M=1). "pg-hook" opens a new
// connection per operation, as a hook process does; "pg-warm" reuses one;
// "pg-connect-only" is a bare connect and close, for scale; "pg-hook-unix" is
// "pg-hook" over the unix socket.
// PostgreSQL runs with its default durable commits (fsync on).
func BenchmarkUpdateAppend(b *testing.B) {
	sizes := []int{10_000}
	if os.Getenv("EVENTLOG_BENCH_1M") != "" {
		sizes = append(sizes, 1_000_000)
	}
	srv := pgtest.Start(b, pgtest.Options{Fsync: os.Getenv("PG_BENCH_NOFSYNC") == ""})
	for _, n := range sizes {
		path := filepath.Join(b.TempDir(), ".hook-loop", "events.jsonl")
		if _, err := benchgen.Write(path, benchgen.Options{Events: n, Sessions: 8, Focus: benchFocus}); err != nil {
			b.Fatal(err)
		}
		opts := Options{Project: fmt.Sprintf("bench-%d", n)}
		if _, err := Migrate[session.View](context.Background(), Target{Path: path}, Target{URL: srv.URL()}, opts); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("jsonl/%d", n), func(b *testing.B) {
			l := session.Open(path)
			for b.Loop() {
				if err := l.Update(func(tx session.Tx) error { return hookWork(tx) }); err != nil {
					b.Fatal(err)
				}
			}
		})
		pgOp := func(b *testing.B, s *testStore) {
			if err := s.Update(func(tx *testTx) error { return hookWork(tx) }); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(fmt.Sprintf("pg-warm/%d", n), func(b *testing.B) {
			s := openStore(b, srv.URL(), opts.Project)
			for b.Loop() {
				pgOp(b, s)
			}
		})
		// What any PostgreSQL client process pays before its first query: the
		// server forks a backend per connection.
		b.Run(fmt.Sprintf("pg-connect-only/%d", n), func(b *testing.B) {
			for b.Loop() {
				conn, err := pgx.Connect(context.Background(), srv.URL())
				if err != nil {
					b.Fatal(err)
				}
				_ = conn.Close(context.Background())
			}
		})
		// A hook process's connection, over loopback TCP and over the unix socket
		// (host=/dir): no TCP handshake, but the server still forks a backend.
		for _, c := range []struct{ name, url string }{{"pg-hook", srv.URL()}, {"pg-hook-unix", srv.SocketURL()}} {
			b.Run(fmt.Sprintf("%s/%d", c.name, n), func(b *testing.B) {
				for b.Loop() {
					s, err := Open[session.View](c.url, opts)
					if err != nil {
						b.Fatal(err)
					}
					pgOp(b, s)
					s.Close()
				}
			})
		}
	}
}
