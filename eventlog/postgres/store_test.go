//go:build unix

package postgres

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/internal/testkit/pgtest"
	"github.com/hook-loop/hook-loop/loop/session"
	"github.com/jackc/pgx/v5"
)

// newDB creates an empty database on srv and returns its URL.
func newDB(t testing.TB, srv *pgtest.Server, name string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	return strings.Replace(srv.URL(), "/postgres?", "/"+name+"?", 1)
}

func openStore(t testing.TB, url, project string) *Store {
	t.Helper()
	s, err := Open(url, Options{Project: project})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// sampleEvents is a little of everything the fold reads, over two sessions.
func sampleEvents() []eventlog.Event {
	return []eventlog.Event{
		{SessionID: "a", EventType: eventlog.TypeSessionInitialized, State: "plan", Payload: map[string]any{"initial_state": "plan"}},
		{SessionID: "b", EventType: eventlog.TypeLoopStarted, State: "plan", Actor: "hook"},
		{SessionID: "a", EventType: eventlog.TypeStateTransitioned, State: "plan", Payload: map[string]any{"from": "plan", "event": "go", "to": "build", "n": 3}},
		{SessionID: "a", EventType: eventlog.TypeStopRefused, State: "build", Payload: map[string]any{"why": "<tests> & more"}},
		{SessionID: "b\xff", EventType: eventlog.TypeEvidenceRegistered, State: "build"},
		{SessionID: "a", EventType: eventlog.TypeLoopOutcome, State: "done", Payload: map[string]any{"outcome": "completed", "forced_by_harness": true}},
	}
}

func TestAppendWritesTheJSONLLinesAndViews(t *testing.T) {
	srv := pgtest.Start(t, pgtest.Options{})
	s := openStore(t, srv.URL(), "github.com/o/r")
	clock := time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)
	s.now = func() time.Time { return clock }
	path := filepath.Join(t.TempDir(), "events.jsonl")
	l := session.Open(path)

	for i, e := range sampleEvents() {
		e.EventID = fmt.Sprintf("id-%d", i)
		var fromLog, fromDB eventlog.Event
		if err := l.Update(func(tx session.Tx) error {
			e := e
			e.Timestamp = clock.Format(eventlog.TimestampLayout)
			var err error
			fromLog, err = tx.Append(e)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if err := s.Update(func(tx *Tx) error {
			var err error
			fromDB, err = tx.Append(e)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(fromLog, fromDB) {
			t.Fatalf("event %d: Append returned\n%+v from the store,\n%+v from the JSONL log", i, fromDB, fromLog)
		}
	}
	var want []string
	if err := l.ScanRaw(nil, func(_ int, raw []byte, _ eventlog.Event) error { want = append(want, string(raw)); return nil }); err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := s.ScanRaw(nil, func(n int, raw []byte, _ eventlog.Event) error {
		if n != len(got)+1 {
			t.Errorf("line number %d, want %d", n, len(got)+1)
		}
		got = append(got, string(raw))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("stored lines differ from the JSONL log's:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	var wantTx, gotTx []any
	if err := l.View(func(tx session.Tx) error {
		wantTx = []any{tx.Project(), tx.SessionIDs(), tx.Session("a"), tx.Session("b\uFFFD"), tx.Session("zz")}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.View(func(tx *Tx) error {
		gotTx = []any{tx.Project(), tx.SessionIDs(), tx.Session("a"), tx.Session("b\uFFFD"), tx.Session("zz")}
		if _, err := tx.Append(eventlog.Event{SessionID: "a", EventType: "x"}); err == nil {
			t.Error("Append inside View succeeded")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotTx, wantTx) {
		t.Fatalf("views:\n%+v\nwant (JSONL)\n%+v", gotTx, wantTx)
	}
	r, err := s.Verify()
	if err != nil || !r.OK() || r.Events != 6 || r.Sessions != 3 {
		t.Fatalf("Verify = %+v, %v", r, err)
	}

	// A failing fn stores nothing.
	if err := s.Update(func(tx *Tx) error {
		if _, err := tx.Append(eventlog.Event{SessionID: "a", EventType: "x"}); err != nil {
			return err
		}
		return fmt.Errorf("changed my mind")
	}); err == nil || err.Error() != "changed my mind" {
		t.Fatalf("Update = %v", err)
	}
	if r, _ := s.Verify(); r.Events != 6 || !r.OK() {
		t.Fatalf("after a failed Update: %+v", r)
	}

	// Another project on the same database sees none of it.
	other := openStore(t, srv.URL(), "github.com/o/other")
	if err := other.View(func(tx *Tx) error {
		if p := tx.Project(); p.Events != 0 || len(tx.SessionIDs()) != 0 {
			t.Errorf("other project sees %+v %v", p, tx.SessionIDs())
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

func TestVerifyFindsTampering(t *testing.T) {
	srv := pgtest.Start(t, pgtest.Options{})
	ctx := context.Background()
	for _, tc := range []struct {
		name, sql, want string
	}{
		{"edited line", `UPDATE hook_loop_events SET line = convert_to(replace(convert_from(line, 'UTF8'), 'build', 'BUILD'), 'UTF8') WHERE seq = 3`, "edited"},
		{"edited line and hash", `UPDATE hook_loop_events SET line = convert_to(replace(convert_from(line, 'UTF8'), '"n":3', '"n":4'), 'UTF8'), hash = 'x' WHERE seq = 3`, "edited"},
		{"deleted middle", `DELETE FROM hook_loop_events WHERE seq = 3`, "deleted"},
		{"deleted last", `DELETE FROM hook_loop_events WHERE seq = 6`, "deleted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := newDB(t, srv, strings.ReplaceAll(tc.name, " ", "_"))
			s := openStore(t, url, "p")
			for _, e := range sampleEvents() {
				if err := s.Update(func(tx *Tx) error { _, err := tx.Append(e); return err }); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := s.conn.Exec(ctx, tc.sql); err != nil {
				t.Fatal(err)
			}
			r, err := s.Verify()
			if err != nil {
				t.Fatal(err)
			}
			if r.OK() || !strings.Contains(r.Reason, tc.want) {
				t.Fatalf("Verify = %+v, want a break that says %q", r, tc.want)
			}
		})
	}
}

func TestSchemaMigratesFromEveryVersion(t *testing.T) {
	srv := pgtest.Start(t, pgtest.Options{})
	ctx := context.Background()
	for v := 0; v <= len(migrations); v++ {
		t.Run(fmt.Sprint("from version ", v), func(t *testing.T) {
			url := newDB(t, srv, fmt.Sprintf("v%d", v))
			conn, err := pgx.Connect(ctx, url)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			if err := migrateTo(ctx, conn, v); err != nil {
				t.Fatal(err)
			}
			// Events stored by that version's hook-loop (none before version 1).
			var prev string
			events := sampleEvents()
			for i := range events[:map[bool]int{true: 0, false: 3}[v == 0]] {
				e := &events[i]
				e.SchemaVersion, e.EventID, e.Timestamp = 1, fmt.Sprint(i), "2026-01-01T00:00:00.000000+00:00"
				if e.SessionID == "a" {
					e.PrevHash = prev
				}
				line, err := encodeLine(e)
				if err != nil {
					t.Fatal(err)
				}
				h := eventlog.LineHash(line)
				if e.SessionID == "a" {
					prev = h
				}
				if v == 1 {
					if _, err := conn.Exec(ctx, `INSERT INTO hook_loop_events VALUES ('p', '', $1, $2, $3, $4, $5)`, i+1, e.SessionID, e.EventType, h, line); err != nil {
						t.Fatal(err)
					}
				} else if v > 1 {
					s := openStore(t, url, "p")
					if err := s.Update(func(tx *Tx) error { _, err := tx.Append(*e); return err }); err != nil {
						t.Fatal(err)
					}
				}
			}
			s := openStore(t, url, "p")
			if err := s.Update(func(tx *Tx) error {
				_, err := tx.Append(eventlog.Event{SessionID: "a", EventType: eventlog.TypeHookFired, State: "after"})
				return err
			}); err != nil {
				t.Fatal(err)
			}
			var got int
			if err := conn.QueryRow(ctx, `SELECT max(version) FROM hook_loop_schema_migrations`).Scan(&got); err != nil || got != len(migrations) {
				t.Fatalf("schema version %d (%v), want %d", got, err, len(migrations))
			}
			r, err := s.Verify()
			wantEvents := 4
			if v == 0 {
				wantEvents = 1
			}
			if err != nil || !r.OK() || r.Events != wantEvents {
				t.Fatalf("Verify = %+v, %v; want %d events, intact", r, err, wantEvents)
			}
			if err := s.View(func(tx *Tx) error {
				a := tx.Session("a")
				if a.Events != wantEvents-map[bool]int{true: 0, false: 1}[v == 0] || a.State != "after" {
					t.Errorf("session a = %+v", a)
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		})
	}
	url := newDB(t, srv, "future")
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := migrateTo(ctx, conn, len(migrations)); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO hook_loop_schema_migrations (version) VALUES ($1)`, len(migrations)+1); err != nil {
		t.Fatal(err)
	}
	err = openStore(t, url, "p").View(func(*Tx) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "upgrade hook-loop") {
		t.Fatalf("newer schema: %v", err)
	}
}

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(childMain())
	}
	os.Exit(m.Run())
}
