//go:build unix

package postgres

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/eventlog/logline"
	"github.com/hook-loop/hook-loop/loop/session"
	"github.com/hook-loop/hook-loop/testkit/pgtest"
)

func appendFile(t *testing.T, l *session.Log, es ...eventlog.Event) {
	t.Helper()
	for _, e := range es {
		if err := l.Update(func(tx session.Tx) error { _, err := tx.Append(e); return err }); err != nil {
			t.Fatal(err)
		}
	}
}

func TestMigrateRoundTrip(t *testing.T) {
	srv := pgtest.Start(t, pgtest.Options{})
	ctx := context.Background()
	dir := t.TempDir()
	src := filepath.Join(dir, "events.jsonl")
	appendFile(t, session.Open(src), sampleEvents()...)
	opts := Options{Project: "migrate"}
	db := Target{URL: srv.URL()}

	rep, err := Migrate[session.View](ctx, Target{Path: src}, db, opts)
	if err != nil || rep.Copied != 6 || rep.Present != 0 {
		t.Fatalf("JSONL → PostgreSQL: %+v, %v", rep, err)
	}
	rep, err = Migrate[session.View](ctx, Target{Path: src}, db, opts)
	if err != nil || rep.Copied != 0 || rep.Present != 6 {
		t.Fatalf("again (idempotent): %+v, %v", rep, err)
	}
	// The views are a fold of what was copied, and hooks carry the chain on.
	s := openStore(t, srv.URL(), opts.Project)
	if err := s.Update(func(tx *testTx) error {
		if a := tx.Session("a"); a.Events != 4 || a.Outcome != "completed" {
			t.Errorf("session a after migrate: %+v", a)
		}
		_, err := tx.Append(eventlog.Event{SessionID: "a", EventType: eventlog.TypeHookFired, State: "done"})
		return err
	}); err != nil {
		t.Fatal(err)
	}

	// PostgreSQL → a new file gives the source's lines plus the new one.
	back := filepath.Join(dir, "back", "events.jsonl")
	rep, err = Migrate[session.View](ctx, db, Target{Path: back}, opts)
	if err != nil || rep.Copied != 7 {
		t.Fatalf("PostgreSQL → JSONL: %+v, %v", rep, err)
	}
	// Sealed again under the file's own key: the same events, chained anew.
	cores := func(path string) string {
		var out []string
		if err := session.Open(path).ScanRaw(nil, func(_ int, raw []byte, _ eventlog.Event) error {
			out = append(out, string(logline.Core(raw)))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return strings.Join(out, "\n") + "\n"
	}
	orig, got := cores(src), cores(back)
	if !strings.HasPrefix(got, orig) || strings.Count(got, "\n") != 7 {
		t.Fatalf("round trip changed the lines:\n%s\nwant a copy of\n%s", got, orig)
	}
	if r, err := session.Open(back).Verify(); err != nil || !r.OK() {
		t.Fatalf("copied file: %+v, %v", r, err)
	}
	// The file's own hooks fold the copied lines and continue the chain.
	appendFile(t, session.Open(back), eventlog.Event{SessionID: "a", EventType: eventlog.TypeHookFired})
	if r, err := session.Open(back).Verify(); err != nil || !r.OK() || r.Events != 8 {
		t.Fatalf("after a hook on the copy: %+v, %v", r, err)
	}
	if rep, err = Migrate[session.View](ctx, db, Target{Path: back}, opts); err == nil {
		t.Fatalf("copy into a file that moved on: %+v, want refused", rep)
	}

	// Diverged: the source gets a different next event than the database.
	appendFile(t, session.Open(src), eventlog.Event{SessionID: "a", EventType: "other"})
	before, _ := s.Verify()
	_, err = Migrate[session.View](ctx, Target{Path: src}, db, opts)
	var refusal *Refusal
	if !errors.As(err, &refusal) || !strings.Contains(err.Error(), "diverged") || !strings.Contains(err.Error(), "at event 7") {
		t.Fatalf("diverged copy: %v", err)
	}
	if after, _ := s.Verify(); after.Events != before.Events {
		t.Fatalf("a refused copy wrote %d events", after.Events-before.Events)
	}

	// A broken source is refused before anything is written.
	broken := filepath.Join(dir, "broken.jsonl")
	b, _ := os.ReadFile(src)
	lines := strings.SplitAfter(string(b), "\n")
	if err := os.WriteFile(broken, []byte(lines[0]+lines[1]+lines[3]), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Migrate[session.View](ctx, Target{Path: broken}, Target{URL: srv.URL()}, Options{Project: "other"}); !errors.As(err, &refusal) || !strings.Contains(err.Error(), "chain broken") {
		t.Fatalf("broken source: %v", err)
	}
}

func TestFollowDeliversCommittedEvents(t *testing.T) {
	srv := pgtest.Start(t, pgtest.Options{})
	s := openStore(t, srv.URL(), "follow")
	writer := openStore(t, srv.URL(), "follow")
	if err := writer.Update(func(tx *testTx) error { return transition(tx, "w") }); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	got := make(chan int, 10)
	done := make(chan error, 1)
	go func() {
		_, err := s.Follow(ctx, 1, func(line int, _ []byte, e eventlog.Event) error {
			got <- line
			return nil
		})
		done <- err
	}()
	for want := 2; want <= 6; want++ {
		if want%2 == 0 {
			if err := writer.Update(func(tx *testTx) error { return transition(tx, "w") }); err != nil {
				t.Fatal(err)
			}
		}
		select {
		case line := <-got:
			if line != want {
				t.Fatalf("Follow delivered line %d, want %d", line, want)
			}
		case <-ctx.Done():
			t.Fatalf("Follow did not deliver line %d", want)
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Follow ended with %v", err)
	}
}

func TestStoreURLs(t *testing.T) {
	for _, tc := range []struct{ in, redacted string }{
		{"postgres://u:pw@db.example:5432/hl?sslmode=require", "postgres://u@db.example:5432/hl?sslmode=require"},
		{"postgresql://db.example/hl?password=pw&sslmode=disable", "postgresql://db.example/hl?sslmode=disable"},
		{"postgres://u@db/hl", "postgres://u@db/hl"},
	} {
		tg, err := ParseStoreURL(tc.in)
		if err != nil || !tg.IsDB() {
			t.Errorf("ParseStoreURL(%q) = %+v, %v", tc.in, tg, err)
		}
		if got := Redact(tc.in); got != tc.redacted || strings.Contains(tg.String(), "pw") {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.redacted)
		}
		if HasPassword(tc.in) != strings.Contains(tc.in, "pw") || HasPassword(tc.redacted) {
			t.Errorf("HasPassword(%q) wrong", tc.in)
		}
	}
	if tg, err := ParseStoreURL(".hook-loop/events.jsonl"); err != nil || tg.IsDB() || tg.Path != ".hook-loop/events.jsonl" {
		t.Errorf("a path: %+v, %v", tg, err)
	}
	for _, bad := range []string{"", "mysql://u:pw@h/db", "postgres://u:pw@/db"} {
		if _, err := ParseStoreURL(bad); err == nil || strings.Contains(err.Error(), "pw") {
			t.Errorf("ParseStoreURL(%q) = %v, want an error without the password", bad, err)
		}
	}
	if _, err := Open[session.View]("postgres://u:pw@h/db?connect_timeout=x", Options{Project: "p"}); err == nil || strings.Contains(err.Error(), "pw") {
		t.Errorf("Open with a bad URL: %v", err)
	}
}
