package eventlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/eventlog/logline"
)

func newLog(t testing.TB) *Log {
	t.Helper()
	return openTest(filepath.Join(t.TempDir(), ".hook-loop", "events.jsonl"))
}

// appendAll appends events in one Update.
func appendAll(t testing.TB, l *Log, evs ...Event) []Event {
	t.Helper()
	var out []Event
	err := l.Update(func(tx *Tx) error {
		for _, e := range evs {
			w, err := tx.Append(e)
			if err != nil {
				return err
			}
			out = append(out, w)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	return out
}

func ev(session, typ, state string, payload map[string]any) Event {
	return Event{SessionID: session, RunID: "run-1", State: state, EventType: typ, Actor: "test", Payload: payload}
}

// fullFold folds the whole log from scratch, the reference every index must match.
func fullFold(t testing.TB, l *Log) (map[string]Summary, Summary, []string) {
	t.Helper()
	st := newState(testFolder{})
	if err := l.loadKey(); err != nil {
		t.Fatal(err)
	}
	var j *judge
	opened := func(f *os.File) {
		fi, _ := f.Stat()
		j = l.judgeFor(f, fi.Size())
	}
	// The fold of the file is of the lines hook-loop honours.
	err := l.scanFile(nil, opened, func(sl *scannedLine) error {
		if sl.e == nil {
			return nil
		}
		last := ""
		if s := st.session(sl.e.SessionID, false); s != nil {
			last = s.LastHash
		}
		if j.verdict(sl.raw, sl.e, sl.start, last, macUnchecked) == "" {
			st.apply(sl.e, sl.hash)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	m := map[string]Summary{}
	for _, id := range st.order {
		e := st.session(id, false)
		s := *e.view.(*Summary)
		s.LastHash = e.LastHash
		m[id] = s
	}
	return m, *st.project.(*Summary), st.order
}

// viewAll returns what a View sees.
func viewAll(t testing.TB, l *Log) (map[string]Summary, Summary, []string) {
	t.Helper()
	m := map[string]Summary{}
	var p Summary
	var ids []string
	err := l.View(func(tx *Tx) error {
		ids = tx.SessionIDs()
		for _, id := range ids {
			m[id] = sessionOf(tx, id)
		}
		p = projectOf(tx)
		return nil
	})
	if err != nil {
		t.Fatalf("View: %v", err)
	}
	return m, p, ids
}

func assertConsistent(t testing.TB, l *Log) {
	t.Helper()
	wm, wp, wids := fullFold(t, l)
	gm, gp, gids := viewAll(t, l)
	if !reflect.DeepEqual(wm, gm) {
		t.Fatalf("index summaries differ from a full fold:\n got %+v\nwant %+v", gm, wm)
	}
	wp.LastHash, gp.LastHash = "", ""
	if wp != gp {
		t.Fatalf("project summary differs from a full fold:\n got %+v\nwant %+v", gp, wp)
	}
	if !slices.Equal(wids, gids) {
		t.Fatalf("session order %v, want %v", gids, wids)
	}
}

func readLines(t testing.TB, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

func TestAppendRoundTripPrototypeFields(t *testing.T) {
	l := newLog(t)
	l.now = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 6000, time.FixedZone("x", 3600)) }
	written := appendAll(t, l,
		ev("s1", TypeSessionInitialized, "planning", map[string]any{"initial_state": "planning"}),
		ev("s1", TypeHookFired, "planning", nil),
	)
	lines := readLines(t, l.Path())
	if len(lines) != 2 {
		t.Fatalf("got %d lines, want 2", len(lines))
	}
	proto := []string{"actor", "event_id", "event_type", "mac", "payload", "run_id", "schema_version", "session_id", "state", "timestamp"}
	for i, line := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		var keys []string
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		want := proto
		if i > 0 {
			want = append(slices.Clone(proto), "prev_hash")
			sort.Strings(want)
		}
		if !slices.Equal(keys, want) {
			t.Errorf("line %d keys %v, want %v", i+1, keys, want)
		}
		if m["schema_version"] != float64(1) {
			t.Errorf("line %d schema_version %v", i+1, m["schema_version"])
		}
		if _, ok := m["payload"].(map[string]any); !ok {
			t.Errorf("line %d payload %v is not an object", i+1, m["payload"])
		}
		if m["timestamp"] != "2026-01-02T02:04:05.000006+00:00" {
			t.Errorf("line %d timestamp %v, want Python's UTC isoformat", i+1, m["timestamp"])
		}
		if _, err := time.Parse(time.RFC3339Nano, m["timestamp"].(string)); err != nil {
			t.Errorf("timestamp is not RFC 3339: %v", err)
		}
	}
	if written[1].PrevHash != logline.Hash([]byte(lines[0])) {
		t.Errorf("prev_hash %q, want hash of line 1", written[1].PrevHash)
	}
	if written[0].EventID == "" || written[0].EventID == written[1].EventID {
		t.Errorf("event ids %q %q", written[0].EventID, written[1].EventID)
	}
	var got []Event
	if err := l.Scan(nil, func(_ int, e Event) error { got = append(got, e); return nil }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, written) {
		t.Fatalf("scan gave\n%+v\nwant\n%+v", got, written)
	}
}

func TestAppendRejectsBadEvents(t *testing.T) {
	l := newLog(t)
	for name, e := range map[string]Event{
		"no session": ev("", "x", "s", nil),
		"no type":    ev("s", "", "s", nil),
		"bad json":   ev("s", "x", "s", map[string]any{"f": func() {}}),
		"too long":   ev("s", "x", "s", map[string]any{"big": strings.Repeat("a", logline.MaxBytes)}),
	} {
		err := l.Update(func(tx *Tx) error { _, err := tx.Append(e); return err })
		if err == nil {
			t.Errorf("%s: Append succeeded", name)
		}
	}
	if _, err := os.Stat(l.Path()); err == nil {
		if data, _ := os.ReadFile(l.Path()); len(data) != 0 {
			t.Fatalf("failed appends wrote %q", data)
		}
	}
}

func TestFnErrorWritesNothing(t *testing.T) {
	l := newLog(t)
	appendAll(t, l, ev("s", TypeHookFired, "a", nil))
	before, _ := os.ReadFile(l.Path())
	boom := errors.New("boom")
	err := l.Update(func(tx *Tx) error {
		if _, err := tx.Append(ev("s", TypeHookFired, "b", nil)); err != nil {
			return err
		}
		if got := sessionOf(tx, "s").Events; got != 2 {
			t.Errorf("staged event not visible: %d events", got)
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update returned %v", err)
	}
	after, _ := os.ReadFile(l.Path())
	if !bytes.Equal(before, after) {
		t.Fatalf("log changed after fn failed")
	}
	if m, _, _ := viewAll(t, l); m["s"].Events != 1 {
		t.Fatalf("index counts %d events", m["s"].Events)
	}
}

func TestViewIsReadOnly(t *testing.T) {
	l := newLog(t)
	err := l.View(func(tx *Tx) error {
		if sessionOf(tx, "x") != (Summary{}) || len(tx.SessionIDs()) != 0 {
			t.Error("empty log has sessions")
		}
		_, err := tx.Append(ev("s", "x", "a", nil))
		return err
	})
	if err == nil {
		t.Fatal("Append inside View succeeded")
	}
	if _, err := os.Stat(filepath.Dir(l.Path())); err == nil {
		t.Fatal("View created the log directory")
	}
}

func TestTornLastLine(t *testing.T) {
	for _, tail := range []string{`{"schema_version":1,"event_id":"x","sess`, "garbage"} {
		t.Run(tail[:5], func(t *testing.T) {
			l := newLog(t)
			appendAll(t, l, ev("s", TypeSessionInitialized, "a", map[string]any{"initial_state": "a"}), ev("s", TypeHookFired, "a", nil))
			f, err := os.OpenFile(l.Path(), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(tail)
			f.Close()

			var n int
			var warns []string
			if err := l.Scan(func(w string) { warns = append(warns, w) }, func(int, Event) error { n++; return nil }); err != nil {
				t.Fatal(err)
			}
			if n != 2 || len(warns) != 1 || !strings.Contains(warns[0], ":3: skipped: torn last line") {
				t.Fatalf("scan: %d events, warnings %q", n, warns)
			}
			if m, _, _ := viewAll(t, l); m["s"].Events != 2 {
				t.Fatalf("view: %+v", m["s"])
			}
			if w := l.Warnings(); len(w) != 1 || !strings.Contains(w[0], "torn last line") {
				t.Fatalf("view warnings %q", w)
			}
			appendAll(t, l, ev("s", TypeEvidenceRegistered, "a", nil))
			if w := l.Warnings(); len(w) != 2 || !strings.Contains(w[0], "torn last line") || !strings.Contains(w[1], ":3: skipped:") {
				t.Fatalf("update warnings %q", w)
			}
			lines := readLines(t, l.Path())
			if len(lines) != 4 || lines[2] != tail {
				t.Fatalf("lines %q", lines)
			}
			if e, err := logline.Parse([]byte(lines[3])); err != nil || e.EventType != TypeEvidenceRegistered {
				t.Fatalf("new event on line 4: %v %+v", err, e)
			}
			if m, _, _ := viewAll(t, l); m["s"].Events != 3 || m["s"].LastType != TypeEvidenceRegistered {
				t.Fatalf("after append: %+v", m["s"])
			}
			if w := l.Warnings(); len(w) != 0 {
				t.Fatalf("the fragment is re-read on the normal path: %q", w)
			}
			assertConsistent(t, l)
			if r, _ := l.Verify(); !r.OK() || r.Skipped != 1 {
				t.Fatalf("verify %+v", r)
			}
		})
	}
}

// A fragment that is a whole event without its newline (a write cut just before
// it) is kept: closing the line makes it an event, and the chain continues from it.
func TestTornTailThatIsAWholeEvent(t *testing.T) {
	l := newLog(t)
	appendAll(t, l, ev("s", TypeHookFired, "a", nil), ev("s", TypeEvidenceRegistered, "a", nil))
	data, _ := os.ReadFile(l.Path())
	os.WriteFile(l.Path(), data[:len(data)-1], 0o644)
	if m, _, _ := viewAll(t, l); m["s"].Events != 1 {
		t.Fatalf("the unterminated event counts before it is closed: %+v", m["s"])
	}
	appendAll(t, l, ev("s", TypeStopRefused, "a", nil))
	m, _, _ := viewAll(t, l)
	if m["s"].Events != 3 || m["s"].LastType != TypeStopRefused {
		t.Fatalf("%+v", m["s"])
	}
	if r, _ := l.Verify(); !r.OK() || r.Events != 3 {
		t.Fatalf("verify %+v", r)
	}
	assertConsistent(t, l)
}

func TestIndexRebuild(t *testing.T) {
	build := func(t *testing.T) *Log {
		l := newLog(t)
		for i := range 20 {
			s := fmt.Sprintf("s%d", i%3)
			appendAll(t, l, ev(s, TypeEvidenceRegistered, fmt.Sprint("st", i), nil))
		}
		return l
	}
	appendRaw := func(t *testing.T, l *Log, e Event) {
		// Another writer that does not maintain the index (e.g. the Python original).
		b, _ := json.Marshal(e)
		f, _ := os.OpenFile(l.Path(), os.O_APPEND|os.O_WRONLY, 0)
		f.Write(append(b, '\n'))
		f.Close()
	}
	cases := map[string]struct {
		mutate  func(t *testing.T, l *Log)
		rebuilt string // "" when the index must be trusted
	}{
		"missing": {func(t *testing.T, l *Log) { os.Remove(l.IndexPath()) }, "no index"},
		"corrupt json": {func(t *testing.T, l *Log) {
			os.WriteFile(l.IndexPath(), []byte("{not json\n"), 0o644)
		}, "index header"},
		"corrupt body": {func(t *testing.T, l *Log) {
			b, _ := os.ReadFile(l.IndexPath())
			os.WriteFile(l.IndexPath(), bytes.Replace(b, []byte(`"last_type":`), []byte(`"last_typE":`), 1), 0o644)
		}, "checksum"},
		"empty file": {func(t *testing.T, l *Log) { os.WriteFile(l.IndexPath(), nil, 0o644) }, "no header"},
		"truncated log": {func(t *testing.T, l *Log) {
			lines := readLines(t, l.Path())
			os.WriteFile(l.Path(), []byte(strings.Join(lines[:10], "\n")+"\n"), 0o644)
		}, "shrank"},
		"rewritten same size": {func(t *testing.T, l *Log) {
			b, _ := os.ReadFile(l.Path())
			b = bytes.Replace(b, []byte(`"state":"st19"`), []byte(`"state":"xx19"`), 1)
			os.WriteFile(l.Path(), b, 0o644)
		}, "rewritten"},
		"rewritten first line": {func(t *testing.T, l *Log) {
			b, _ := os.ReadFile(l.Path())
			b = bytes.Replace(b, []byte(`"state":"st0"`), []byte(`"state":"xx0"`), 1)
			os.WriteFile(l.Path(), b, 0o644)
		}, "first line"},
		"replaced file": {func(t *testing.T, l *Log) {
			b, _ := os.ReadFile(l.Path())
			tmp := l.Path() + ".new"
			os.WriteFile(tmp, b, 0o644)
			os.Rename(tmp, l.Path())
		}, "replaced"},
		// A writer that is not hook-loop (the prototype, or the agent): its
		// line is read, not honoured, and the index is not rebuilt for it.
		"appended by another writer": {func(t *testing.T, l *Log) {
			appendRaw(t, l, ev("s9", TypeEvidenceRegistered, "late", nil))
		}, ""},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			l := build(t)
			c.mutate(t, l)
			wm, _, _ := fullFold(t, l)
			gm, _, _ := viewAll(t, l)
			if !reflect.DeepEqual(wm, gm) {
				t.Fatalf("got %+v\nwant %+v", gm, wm)
			}
			w := strings.Join(l.Warnings(), "\n")
			w = strings.TrimSpace(regexp.MustCompile(`(?m)^.*not honoured.*$`).ReplaceAllString(w, ""))
			if c.rebuilt == "" {
				if w != "" {
					t.Fatalf("unexpected warnings: %s", w)
				}
			} else if !strings.Contains(w, "index rebuilt") || !strings.Contains(w, c.rebuilt) {
				t.Fatalf("warnings %q, want a rebuild because of %q", w, c.rebuilt)
			}
			// The View repaired the index: the next run trusts it.
			viewAll(t, l)
			if w := l.Warnings(); len(w) != 0 {
				t.Fatalf("index not repaired: %q", w)
			}
			appendAll(t, l, ev("s1", TypeStopRefused, "z", nil))
			assertConsistent(t, l)
		})
	}
}

// The normal path reads only the bytes after the index's offset: damage to an
// earlier line goes unnoticed by Update (Verify is what reads everything).
func TestIndexNormalPathReadsOnlyTail(t *testing.T) {
	l := newLog(t)
	for i := range 50 {
		appendAll(t, l, ev(fmt.Sprint("s", i%2), TypeEvidenceRegistered, "a", nil))
	}
	size := func() int64 { fi, _ := os.Stat(l.Path()); return fi.Size() }
	// Make line 10 unparseable without changing the first or last line.
	b, _ := os.ReadFile(l.Path())
	lines := bytes.SplitAfter(b, []byte("\n"))
	lines[9] = bytes.Repeat([]byte("#"), len(lines[9])-1)
	lines[9] = append(lines[9], '\n')
	os.WriteFile(l.Path(), bytes.Join(lines, nil), 0o644)

	l.tailRead = 0
	appendAll(t, l, ev("s0", TypeHookFired, "a", nil))
	if l.tailRead != 0 {
		t.Fatalf("Update read %d bytes of an indexed log", l.tailRead)
	}
	if w := l.Warnings(); len(w) != 0 {
		t.Fatalf("Update re-parsed old lines: %q", w)
	}
	// A line appended by someone else is read, and only that line.
	before := size()
	f, _ := os.OpenFile(l.Path(), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"session_id":"s1","event_type":"hook_fired","state":"b"}` + "\n")
	f.Close()
	l.tailRead = 0
	var s1 Summary
	l.View(func(tx *Tx) error { s1 = sessionOf(tx, "s1"); return nil })
	if l.tailRead != size()-before {
		t.Fatalf("View read %d bytes, want the %d appended", l.tailRead, size()-before)
	}
	// Read, and not honoured: hook-loop did not write it.
	if s1.State != "a" || s1.Events != 25 {
		t.Fatalf("s1 %+v", s1)
	}
	if w := strings.Join(l.Warnings(), "\n"); !strings.Contains(w, "not honoured") {
		t.Fatalf("warnings %q, want the foreign line reported", w)
	}
}

func TestVerify(t *testing.T) {
	build := func(t *testing.T) (*Log, []string) {
		l := newLog(t)
		for i := range 6 {
			appendAll(t, l, ev(fmt.Sprint("s", i%2), TypeHookFired, fmt.Sprint("st", i), nil))
		}
		return l, readLines(t, l.Path())
	}
	write := func(l *Log, lines []string) {
		os.WriteFile(l.Path(), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	}
	t.Run("intact", func(t *testing.T) {
		l, _ := build(t)
		r, err := l.Verify()
		if err != nil || !r.OK() || r.Events != 6 || r.Sessions != 2 || r.Lines != 6 {
			t.Fatalf("%+v %v", r, err)
		}
	})
	t.Run("edited", func(t *testing.T) {
		l, lines := build(t)
		lines[2] = strings.Replace(lines[2], `"st2"`, `"st9"`, 1) // s0's second event
		write(l, lines)
		r, _ := l.Verify()
		// line 3 is vouched for by s0's next event at line 5.
		if r.BrokenLine != 5 || r.PrevLine != 3 || r.BrokenSession != "s0" || !strings.Contains(r.Reason, "line 3 was edited") {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("deleted", func(t *testing.T) {
		l, lines := build(t)
		write(l, slices.Delete(lines, 3, 4)) // s1's second event (line 4)
		r, _ := l.Verify()
		if r.BrokenLine != 5 || r.PrevLine != 2 || r.BrokenSession != "s1" || r.Events != 5 {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("deleted first", func(t *testing.T) {
		l, lines := build(t)
		write(l, lines[1:])
		r, _ := l.Verify()
		if r.BrokenLine != 2 || r.BrokenSession != "s0" || !strings.Contains(r.Reason, "first event") {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("duplicated", func(t *testing.T) {
		l, lines := build(t)
		write(l, slices.Insert(lines, 5, lines[2]))
		r, _ := l.Verify()
		if r.BrokenLine != 6 || !strings.Contains(r.Reason, "points to line 1") {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("first break wins", func(t *testing.T) {
		l, lines := build(t)
		lines[3] = strings.Replace(lines[3], `"st3"`, `"st8"`, 1)
		lines[0] = strings.Replace(lines[0], `"st0"`, `"st9"`, 1)
		write(l, lines)
		r, _ := l.Verify()
		if r.BrokenLine != 3 || r.Events != 6 {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("no chain", func(t *testing.T) {
		l, lines := build(t)
		lines[4] = strings.Replace(lines[4], `"prev_hash"`, `"prev_hasx"`, 1)
		write(l, lines)
		r, _ := l.Verify()
		if r.BrokenLine != 5 || !strings.Contains(r.Reason, "no prev_hash") {
			t.Fatalf("%+v", r)
		}
	})
}

func TestScanSkipsBadLines(t *testing.T) {
	l := newLog(t)
	os.MkdirAll(filepath.Dir(l.Path()), 0o755)
	content := strings.Join([]string{
		`{"session_id":"a","event_type":"x","state":"s"}`,
		`not json`,
		``,
		`[1,2]`,
		`{"session_id":"a","event_type":7}`,
		`{"session_id":"a","event_type":"y","state":"t","payload":{"k":1}}`,
	}, "\n") + "\n"
	os.WriteFile(l.Path(), []byte(content), 0o644)
	var lines []int
	var warns []string
	err := l.Scan(func(w string) { warns = append(warns, w) }, func(n int, e Event) error { lines = append(lines, n); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(lines, []int{1, 6}) {
		t.Fatalf("event lines %v", lines)
	}
	want := []string{":2: skipped: not valid JSON", ":4: skipped: not a JSON object", ":5: skipped: event_type: expected a string"}
	if len(warns) != len(want) {
		t.Fatalf("warnings %q", warns)
	}
	for i, w := range want {
		if !strings.HasPrefix(warns[i], l.Path()) || !strings.Contains(warns[i], w) {
			t.Errorf("warning %q, want %q", warns[i], w)
		}
	}
	stop := errors.New("stop")
	if err := l.Scan(nil, func(int, Event) error { return stop }); !errors.Is(err, stop) {
		t.Fatalf("fn error not returned: %v", err)
	}
	if err := openTest(filepath.Join(t.TempDir(), "none")).Scan(nil, func(int, Event) error { return stop }); err != nil {
		t.Fatalf("missing log: %v", err)
	}
}

func TestLongLineSkipped(t *testing.T) {
	l := newLog(t)
	appendAll(t, l, ev("s", TypeHookFired, "a", nil))
	f, _ := os.OpenFile(l.Path(), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"session_id":"s","event_type":"x","payload":{"p":"` + strings.Repeat("a", logline.MaxBytes) + `"}}` + "\n")
	f.Close()
	appendAll(t, l, ev("s", TypeEvidenceRegistered, "a", nil))
	if w := l.Warnings(); len(w) != 1 || !strings.Contains(w[0], ":2: skipped: line longer") {
		t.Fatalf("warnings %q", l.Warnings())
	}
	assertConsistent(t, l)
	viewAll(t, l)
	if w := l.Warnings(); len(w) != 0 {
		t.Fatalf("index with a long last line is not trusted: %q", w)
	}
	m, _, _ := viewAll(t, l)
	if m["s"].Events != 2 {
		t.Fatalf("%+v", m["s"])
	}
}

// Sessions a run does not touch are neither decoded nor re-encoded: their index
// lines are copied as they were.
func TestIndexUntouchedSessionsCopied(t *testing.T) {
	l := newLog(t)
	var evs []Event
	for i := range 40 {
		evs = append(evs, ev(fmt.Sprintf("s%02d", i), TypeSessionInitialized, "a", map[string]any{"initial_state": "a"}))
	}
	appendAll(t, l, evs...)
	compactIndex(t, l)
	before := readLines(t, l.IndexPath())
	err := l.Update(func(tx *Tx) error {
		if got := len(tx.SessionIDs()); got != 40 {
			t.Errorf("%d sessions", got)
		}
		if len(tx.st.sess) != 0 {
			t.Errorf("%d sessions decoded before any was asked for", len(tx.st.sess))
		}
		_, err := tx.Append(ev("s07", TypeEvidenceRegistered, "a", nil))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	// The snapshot stays as it was; one delta follows with the new header and
	// s07's line only.
	after := readLines(t, l.IndexPath())
	if len(after) != len(before)+3 {
		t.Fatalf("index has %d lines, had %d", len(after), len(before))
	}
	for i := range before {
		if after[i] != before[i] {
			t.Errorf("index line %d changed: %s", i+1, after[i])
		}
	}
	if d := after[len(before)+2]; !strings.Contains(d, `"id":"s07"`) {
		t.Errorf("delta session line %s", d)
	}
	assertConsistent(t, l)
}

// An index entry that passes the checksum but does not decode (forged, or a bug)
// fails the run that needs it, before anything is written, and drops the index.
func TestIndexEntryThatDoesNotDecode(t *testing.T) {
	l := newLog(t)
	appendAll(t, l, ev("a", TypeHookFired, "x", nil), ev("b", TypeHookFired, "y", nil))
	compactIndex(t, l)
	lines := readLines(t, l.IndexPath())
	for i := 2; i < len(lines); i++ {
		if strings.Contains(lines[i], `"id":"b"`) {
			lines[i] = strings.Replace(lines[i], `"events":1`, `"events":"1"`, 1)
		}
	}
	rest := strings.Join(lines[1:], "\n") + "\n"
	// Damaged as if by a bug, not an attack: the checksum and the MAC fit.
	data, _ := record(indexStamp{Format: indexFormat, Version: indexVersion}, []byte(rest), l.key, "")
	os.WriteFile(l.IndexPath(), data, 0o644)
	logBefore, _ := os.ReadFile(l.Path())

	// A run that needs only a is not bothered.
	if err := l.View(func(tx *Tx) error {
		if s := sessionOf(tx, "a"); s.State != "x" {
			t.Errorf("a: %+v", s)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	err := l.Update(func(tx *Tx) error {
		_, err := tx.Append(ev("b", TypeHookFired, "z", nil))
		return err
	})
	if err == nil || !strings.Contains(err.Error(), `index entry of session "b" does not decode`) {
		t.Fatalf("Update: %v", err)
	}
	if logAfter, _ := os.ReadFile(l.Path()); !bytes.Equal(logBefore, logAfter) {
		t.Fatal("the log was written from a bad summary")
	}
	appendAll(t, l, ev("b", TypeHookFired, "z", nil))
	if w := strings.Join(l.Warnings(), "\n"); !strings.Contains(w, "index rebuilt") {
		t.Fatalf("warnings %q", w)
	}
	assertConsistent(t, l)
}

// The last events of a session have no successor in the chain; the index vouches
// for them.
func TestVerifyAgainstIndex(t *testing.T) {
	build := func(t *testing.T) (*Log, []string) {
		l := newLog(t)
		for i := range 6 {
			appendAll(t, l, ev(fmt.Sprint("s", i%2), TypeHookFired, fmt.Sprint("st", i), nil))
		}
		return l, readLines(t, l.Path())
	}
	write := func(l *Log, lines []string) {
		// In place, as an editor that keeps the file would.
		os.WriteFile(l.Path(), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	}
	t.Run("last event edited", func(t *testing.T) {
		l, lines := build(t)
		lines[5] = strings.Replace(lines[5], `"st5"`, `"st9"`, 1)
		write(l, lines)
		r, _ := l.Verify()
		if r.BrokenLine != 6 || r.BrokenSession != "s1" || !strings.Contains(r.Reason, "last events were edited or deleted") {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("last events deleted", func(t *testing.T) {
		l, lines := build(t)
		write(l, lines[:4])
		r, _ := l.Verify()
		if r.BrokenLine != 5 || !strings.Contains(r.Reason, "ends before") {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("appended after the index", func(t *testing.T) {
		l, lines := build(t)
		f, _ := os.OpenFile(l.Path(), os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString(`{"session_id":"s9","event_type":"x"}` + "\n")
		f.Close()
		// The chain is intact; the line is not hook-loop's.
		r, _ := l.Verify()
		if r.BrokenLine != 0 || r.Events != len(lines)+1 || r.TamperedCount != 1 || r.Tampered[0].Line != len(lines)+1 || r.OK() {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("index of another file", func(t *testing.T) {
		if fileID(mustStat(t, os.Args[0])) == "" {
			t.Skip("no file identity on this platform")
		}
		l, lines := build(t)
		tmp := l.Path() + ".new"
		os.WriteFile(tmp, []byte(strings.Join(lines[:4], "\n")+"\n"), 0o644)
		os.Rename(tmp, l.Path())
		if r, _ := l.Verify(); !r.OK() || r.Events != 4 {
			t.Fatalf("%+v", r)
		}
	})
	t.Run("no index", func(t *testing.T) {
		l, lines := build(t)
		os.Remove(l.IndexPath())
		write(l, lines[:4])
		if r, _ := l.Verify(); !r.OK() {
			t.Fatalf("%+v", r)
		}
	})
}

func mustStat(t *testing.T, path string) os.FileInfo {
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

type label string

// Summaries come from the line as written, so the caller's Go types cannot make
// them differ from a fold of the file.
func TestAppendFoldsWhatIsWritten(t *testing.T) {
	l := newLog(t)
	err := l.Update(func(tx *Tx) error {
		if _, err := tx.Append(ev("s\xff", TypeStateTransitioned, "a", map[string]any{"to": label("b"), "from": "a"})); err != nil {
			return err
		}
		if _, err := tx.Append(ev("s\xff", TypeLoopOutcome, "b", map[string]any{"outcome": label("completed")})); err != nil {
			return err
		}
		if ids := tx.SessionIDs(); len(ids) != 1 || ids[0] != "s\uFFFD" {
			t.Errorf("session ids %q", ids)
		}
		if s := sessionOf(tx, "s\uFFFD"); s.State != "b" || s.Outcome != "completed" {
			t.Errorf("in the transaction: %+v", s)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	assertConsistent(t, l)
	if r, err := l.Verify(); err != nil || !r.OK() || r.Events != 2 {
		t.Fatalf("verify %+v %v", r, err)
	}
}

// compactIndex rewrites l's index as one snapshot, as a compaction does, for
// tests that edit it line by line.
func compactIndex(t *testing.T, l *Log) {
	t.Helper()
	if err := l.loadKey(); err != nil {
		t.Fatal(err)
	}
	st, why, err := readIndex(l.IndexPath(), l.folder, l.key, false)
	if st == nil {
		t.Fatalf("read index: %s %v", why, err)
	}
	data, err := st.encodeIndex(l.key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(l.IndexPath(), data, 0o644); err != nil {
		t.Fatal(err)
	}
}
