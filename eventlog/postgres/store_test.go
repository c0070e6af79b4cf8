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
	"github.com/hook-loop/hook-loop/eventlog/logline"
	"github.com/hook-loop/hook-loop/loop/session"
	"github.com/hook-loop/hook-loop/testkit/pgtest"
	"github.com/jackc/pgx/v5"
)

// newDB creates an empty database on srv and returns its URL.
// Each database is its own log history, so it gets its own keys.
func newDB(t testing.TB, srv *pgtest.Server, name string) string {
	t.Helper()
	t.Setenv(eventlog.StateDirEnv, t.TempDir())
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

// testStore and testTx are the store of the loop's own view, as the hooks
// keep it.
type (
	testStore = Store[session.View, *session.View]
	testTx    = Tx[session.View, *session.View]
)

func openStore(t testing.TB, url, project string) *testStore {
	t.Helper()
	s, err := Open[session.View](url, Options{Project: project})
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
		if err := s.Update(func(tx *testTx) error {
			var err error
			fromDB, err = tx.Append(e)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		// Each log has its own key, so MACs (and the hashes they chain) differ.
		if len(fromDB.MAC) != 64 || (fromDB.PrevHash == "") != (fromLog.PrevHash == "") {
			t.Fatalf("event %d: MAC %q, prev_hash %q from the store", i, fromDB.MAC, fromDB.PrevHash)
		}
		fromLog.MAC, fromDB.MAC, fromLog.PrevHash, fromDB.PrevHash = "", "", "", ""
		if !reflect.DeepEqual(fromLog, fromDB) {
			t.Fatalf("event %d: Append returned\n%+v from the store,\n%+v from the JSONL log", i, fromDB, fromLog)
		}
	}
	var want []string
	if err := l.ScanRaw(nil, func(_ int, raw []byte, _ eventlog.Event) error {
		want = append(want, string(logline.Core(raw)))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := s.ScanRaw(nil, func(n int, raw []byte, _ eventlog.Event) error {
		if n != len(got)+1 {
			t.Errorf("line number %d, want %d", n, len(got)+1)
		}
		if !s.key.Check(raw) {
			t.Errorf("line %d has no right MAC under the store's key: %s", n, raw)
		}
		got = append(got, string(logline.Core(raw)))
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
	if err := s.View(func(tx *testTx) error {
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
	if err := s.Update(func(tx *testTx) error {
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
	if err := other.View(func(tx *testTx) error {
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
				if err := s.Update(func(tx *testTx) error { _, err := tx.Append(e); return err }); err != nil {
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
			if err := migrateTo(ctx, conn, v, rebuildViews[session.View, *session.View]); err != nil {
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
				// Unkeyed lines, as every version before keying wrote.
				line, err := encodeLine(e, nil)
				if err != nil {
					t.Fatal(err)
				}
				h := logline.Hash(line)
				if e.SessionID == "a" {
					prev = h
				}
				if _, err := conn.Exec(ctx, `INSERT INTO hook_loop_events VALUES ('p', '', $1, $2, $3, $4, $5)`, i+1, e.SessionID, e.EventType, h, line); err != nil {
					t.Fatal(err)
				}
			}
			if v == 2 {
				// Views folded under the old Summary type (another shape): rebuilt.
				if _, err := conn.Exec(ctx, `INSERT INTO hook_loop_views VALUES ('p', '', '', 1, 3, 3, 'x', '{"state": 7, "summary_v": 1}'), ('p', '', 'a', 1, 2, 2, 'x', '{"state": ["old"]}')`); err != nil {
					t.Fatal(err)
				}
			}
			s := openStore(t, url, "p")
			if err := s.Update(func(tx *testTx) error {
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
			if err := s.View(func(tx *testTx) error {
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
	if err := migrateTo(ctx, conn, len(migrations), rebuildViews[session.View, *session.View]); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO hook_loop_schema_migrations (version) VALUES ($1)`, len(migrations)+1); err != nil {
		t.Fatal(err)
	}
	err = openStore(t, url, "p").View(func(*testTx) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "upgrade hook-loop") {
		t.Fatalf("newer schema: %v", err)
	}
}

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(childMain())
	}
	// The log keys of every test (and of its child hooks, which inherit it).
	if os.Getenv(eventlog.StateDirEnv) == "" {
		dir, err := os.MkdirTemp("", "hook-loop-state-")
		if err != nil {
			panic(err)
		}
		os.Setenv(eventlog.StateDirEnv, dir)
		code := m.Run()
		os.RemoveAll(dir)
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// A row hook-loop did not write — a forged line, an edited one — is not
// honoured, as in the file; an edited view is folded again from the events.
func TestForgedRowsAreNotHonoured(t *testing.T) {
	srv := pgtest.Start(t, pgtest.Options{})
	ctx := context.Background()
	url := newDB(t, srv, "forged")
	s := openStore(t, url, "p")
	for _, e := range sampleEvents() {
		if err := s.Update(func(tx *testTx) error { _, err := tx.Append(e); return err }); err != nil {
			t.Fatal(err)
		}
	}
	var before session.View
	_ = s.View(func(tx *testTx) error { before = tx.Session("a"); return nil })

	// A forged transition of session a after its last line: no MAC.
	var last string
	if err := s.conn.QueryRow(ctx, `SELECT last_hash FROM hook_loop_views WHERE project = 'p' AND session_id = 'a'`).Scan(&last); err != nil {
		t.Fatal(err)
	}
	forged := fmt.Sprintf(`{"schema_version":1,"event_id":"f","session_id":"a","run_id":"","timestamp":"t","state":"plan","event_type":"state_transitioned","actor":"","payload":{"to":"shipped"},"prev_hash":%q}`, last)
	if _, err := s.conn.Exec(ctx, `INSERT INTO hook_loop_events VALUES ('p', '', 7, 'a', 'state_transitioned', $1, $2)`, logline.Hash([]byte(forged)), []byte(forged)); err != nil {
		t.Fatal(err)
	}
	if err := s.Update(func(tx *testTx) error {
		if a := tx.Session("a"); a.State != before.State || a.Events != before.Events {
			t.Errorf("forged row honoured: %+v, want %+v", a, before)
		}
		if n := tx.Tampered("a"); len(n) != 1 || n[0].Line != 7 || !strings.Contains(n[0].Reason, "no MAC") {
			t.Errorf("Tampered = %+v", n)
		}
		_, err := tx.Append(eventlog.Event{SessionID: "a", EventType: eventlog.TypeHookFired, State: before.State})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(s.Warnings(), "\n"); !strings.Contains(w, "not honoured") {
		t.Errorf("warnings %q do not say a row was not honoured", w)
	}
	r, err := s.Verify()
	if err != nil || r.TamperedCount != 1 || r.Tampered[0].Line != 7 || r.OK() {
		t.Fatalf("Verify = %+v, %v; want event 7 listed as tampered", r, err)
	}

	// An edited view (the agent adds evidence) is not believed.
	if _, err := s.conn.Exec(ctx, `UPDATE hook_loop_views SET summary = jsonb_set(summary, '{evidence}', '99') WHERE project = 'p' AND session_id = 'a'`); err != nil {
		t.Fatal(err)
	}
	if err := s.View(func(tx *testTx) error {
		if a := tx.Session("a"); a.Evidence == 99 || a.Events != before.Events+1 {
			t.Errorf("edited view believed: %+v", a)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
