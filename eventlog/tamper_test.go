package eventlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/eventlog/logline"
)

// forge appends a line the way an agent with a shell would: a correctly
// sha256-chained event (the unkeyed scheme), optionally with a made-up MAC.
func forge(t *testing.T, l *Log, session string, e Event, mac string) {
	t.Helper()
	var last string
	if err := l.View(func(tx *Tx) error { last = tx.Head(session).LastHash; return nil }); err != nil {
		t.Fatal(err)
	}
	e.SessionID, e.PrevHash, e.MAC = session, last, mac
	b, _ := json.Marshal(e)
	f, err := os.OpenFile(l.Path(), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(append(b, '\n'))
	f.Close()
}

var toDone = ev("", TypeStateTransitioned, "done", map[string]any{"from": "executing", "event": "finish", "to": "done"})

func sessionTampered(t *testing.T, l *Log, id string) (Summary, []TamperNote) {
	t.Helper()
	var s Summary
	var notes []TamperNote
	err := l.Update(func(tx *Tx) error {
		s, notes = sessionOf(tx, id), tx.Tampered(id)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s, notes
}

func executing(t *testing.T) *Log {
	l := newLog(t)
	appendAll(t, l,
		ev("s1", TypeSessionInitialized, "planning", map[string]any{"initial_state": "planning"}),
		ev("s1", TypeStateTransitioned, "executing", map[string]any{"from": "planning", "event": "go", "to": "executing"}),
	)
	return l
}

func TestForgedLinesAreNotHonoured(t *testing.T) {
	cases := map[string]string{
		"sha256-chained, no MAC": "",
		"made-up MAC":            strings.Repeat("ab", 32),
	}
	for name, mac := range cases {
		t.Run(name, func(t *testing.T) {
			l := executing(t)
			n := len(readLines(t, l.Path()))
			forge(t, l, "s1", toDone, mac)
			s, notes := sessionTampered(t, l, "s1")
			if s.State != "executing" || s.Events != 2 {
				t.Fatalf("forged line honoured: %+v", s)
			}
			if len(notes) != 1 || notes[0].Line != n+1 || !notes[0].New {
				t.Fatalf("tamper notes %+v, want line %d, new", notes, n+1)
			}
			// Reported once: the next run reads it from the index, not new.
			if _, notes := sessionTampered(t, l, "s1"); len(notes) != 1 || notes[0].New {
				t.Fatalf("second run notes %+v", notes)
			}
			r, err := l.Verify()
			if err != nil {
				t.Fatal(err)
			}
			if r.OK() || r.TamperedCount != 1 || r.Tampered[0].Line != n+1 {
				t.Fatalf("verify %+v", r)
			}
			// hook-loop goes on from the last honoured line, and a rebuilt index
			// agrees.
			appendAll(t, l, ev("s1", TypeHookFired, "executing", nil))
			os.Remove(l.IndexPath())
			if s, notes := sessionTampered(t, l, "s1"); s.State != "executing" || s.Events != 3 || len(notes) != 1 {
				t.Fatalf("after rebuild: %+v %+v", s, notes)
			}
		})
	}
}

func TestEditedLineIsNotHonoured(t *testing.T) {
	l := executing(t)
	appendAll(t, l, ev("s1", TypeHookFired, "executing", nil))
	lines := readLines(t, l.Path())
	// The agent turns the transition into one to done, keeping the MAC.
	lines[1] = strings.Replace(lines[1], `"to":"executing"`, `"to":"done"`, 1)
	os.WriteFile(l.Path(), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	os.Remove(l.IndexPath())
	s, notes := sessionTampered(t, l, "s1")
	if s.State != "planning" || len(notes) == 0 || notes[0].Line != 2 || !strings.Contains(notes[0].Reason, "MAC does not match") {
		t.Fatalf("%+v %+v", s, notes)
	}
	r, _ := l.Verify()
	if r.OK() || r.Tampered[0].Line != 2 {
		t.Fatalf("verify %+v", r)
	}
}

func TestEditedIndexIsNotTrusted(t *testing.T) {
	l := executing(t)
	compactIndex(t, l)
	b, _ := os.ReadFile(l.IndexPath())
	b = bytes.ReplaceAll(b, []byte(`"state":"executing"`), []byte(`"state":"done"`))
	// Fix the checksum, as anyone can; the MAC they cannot.
	nl := bytes.IndexByte(b, '\n')
	var stamp indexStamp
	json.Unmarshal(b[:nl], &stamp)
	stamp.CRC = crc32.ChecksumIEEE(b[nl+1:])
	stamp.Len = len(b[nl+1:])
	head, _ := json.Marshal(stamp)
	os.WriteFile(l.IndexPath(), append(append(head, '\n'), b[nl+1:]...), 0o644)
	s, _ := sessionTampered(t, l, "s1")
	if s.State != "executing" {
		t.Fatalf("edited index honoured: %+v", s)
	}
	if w := strings.Join(l.Warnings(), "\n"); !strings.Contains(w, "index MAC does not match") {
		t.Fatalf("warnings %q", w)
	}
}

func TestReplayedLineIsNotHonoured(t *testing.T) {
	l := newLog(t)
	appendAll(t, l, ev("s1", TypeEvidenceRegistered, "a", nil), ev("s1", TypeHookFired, "a", nil))
	lines := readLines(t, l.Path())
	f, _ := os.OpenFile(l.Path(), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(lines[0] + "\n") // a genuine line, copied
	f.Close()
	s, notes := sessionTampered(t, l, "s1")
	if s.Events != 2 || len(notes) != 1 || !strings.Contains(notes[0].Reason, "replayed") {
		t.Fatalf("%+v %+v", s, notes)
	}
}

// legacyLog writes a log as hook-loop wrote it before keying: sha256-chained
// lines without a MAC.
func legacyLog(t *testing.T, l *Log, n int) {
	t.Helper()
	os.MkdirAll(filepath.Dir(l.Path()), 0o755)
	var buf bytes.Buffer
	last := ""
	for i := range n {
		e := ev("s1", TypeHookFired, "old", nil)
		if i == 0 {
			e = ev("s1", TypeSessionInitialized, "old", map[string]any{"initial_state": "old"})
		}
		e.SchemaVersion, e.EventID, e.Timestamp, e.PrevHash = 1, "id", "2025-01-01T00:00:00.000000+00:00", last
		b, _ := json.Marshal(e)
		last = logline.Hash(b)
		buf.Write(append(b, '\n'))
	}
	os.WriteFile(l.Path(), buf.Bytes(), 0o644)
}

func TestLegacyLogStillLoads(t *testing.T) {
	l := newLog(t)
	legacyLog(t, l, 3)
	if s, notes := sessionTampered(t, l, "s1"); s.State != "old" || s.Events != 3 || len(notes) != 0 {
		t.Fatalf("%+v %+v", s, notes)
	}
	appendAll(t, l, ev("s1", TypeStateTransitioned, "new", map[string]any{"to": "new"}))
	os.Remove(l.IndexPath())
	if s, notes := sessionTampered(t, l, "s1"); s.State != "new" || s.Events != 4 || len(notes) != 0 {
		t.Fatalf("%+v %+v", s, notes)
	}
	r, err := l.Verify()
	if err != nil || !r.OK() || r.Legacy != 3 || r.KeyedAt != 4 {
		t.Fatalf("verify %+v %v", r, err)
	}
	// An unkeyed line after keying is not a legacy line.
	forge(t, l, "s1", toDone, "")
	if s, notes := sessionTampered(t, l, "s1"); s.State != "new" || len(notes) != 1 || notes[0].Line != 5 {
		t.Fatalf("%+v %+v", s, notes)
	}
}

func TestLegacyPartRewrittenAfterKeying(t *testing.T) {
	l := newLog(t)
	legacyLog(t, l, 3)
	appendAll(t, l, ev("s2", TypeHookFired, "x", nil)) // keys the log
	lines := readLines(t, l.Path())
	// Same length, different state: the pinned SHA-256 no longer matches.
	lines[2] = strings.Replace(lines[2], `"state":"old"`, `"state":"don"`, 1)
	os.WriteFile(l.Path(), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	os.Remove(l.IndexPath())
	if s, notes := sessionTampered(t, l, "s1"); s.Events != 0 || len(notes) != 3 {
		t.Fatalf("%+v %+v", s, notes)
	}
	// A whole log replaced by unkeyed lines is the same case.
	legacyLog(t, l, 2)
	os.Remove(l.IndexPath())
	if s, notes := sessionTampered(t, l, "s1"); s.Events != 0 || len(notes) != 2 {
		t.Fatalf("replaced: %+v %+v", s, notes)
	}
}

func TestKeyLivesOutsideTheProject(t *testing.T) {
	l := executing(t)
	kp, _ := KeyPath(l.Path())
	if !strings.HasPrefix(kp, os.Getenv(StateDirEnv)) {
		t.Fatalf("key %s not under %s", kp, StateDirEnv)
	}
	fi, err := os.Stat(kp)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("key mode %v, want 0600", fi.Mode().Perm())
		}
		if di, _ := os.Stat(filepath.Dir(kp)); di.Mode().Perm() != 0o700 {
			t.Errorf("key dir mode %v, want 0700", di.Mode().Perm())
		}
	}
	// Another log (project) has another key.
	other, _ := KeyPath(filepath.Join(t.TempDir(), "events.jsonl"))
	if other == kp {
		t.Fatal("two logs share a key")
	}
}

func TestLockTimeoutFromEnv(t *testing.T) {
	t.Setenv(LockTimeoutEnv, "250ms")
	if l := Open("x", nil); l.lockTimeout != 250*time.Millisecond {
		t.Fatalf("%v", l.lockTimeout)
	}
	t.Setenv(LockTimeoutEnv, "soon")
	if l := Open("x", nil); l.lockTimeout != DefaultLockTimeout || l.envWarning == "" {
		t.Fatalf("%v %q", l.lockTimeout, l.envWarning)
	}
	// Past what a hook may wait inside its harness's timeout: capped, and said.
	t.Setenv(LockTimeoutEnv, "60s")
	if l := Open("x", nil); l.lockTimeout != MaxLockTimeout || l.envWarning == "" {
		t.Fatalf("60s: %v %q", l.lockTimeout, l.envWarning)
	}
	if l := Open("x", nil, WithLockTimeout(time.Second)); l.lockTimeout != time.Second {
		t.Fatalf("option: %v", l.lockTimeout)
	}
}

// A person's read (status, log) under another HOME finds no key: it shows the
// log unchecked and says so; a hook (Update) honours nothing it cannot check.
func TestNoKeyHere(t *testing.T) {
	l := executing(t)
	legacyView := newLog(t)
	legacyLog(t, legacyView, 2)
	t.Setenv(StateDirEnv, t.TempDir())
	other := openTest(l.Path())
	var s Summary
	if err := other.View(func(tx *Tx) error { s = sessionOf(tx, "s1"); return nil }); err != nil {
		t.Fatal(err)
	}
	if s.State != "executing" || !strings.Contains(strings.Join(other.Warnings(), "\n"), "MACs not checked") {
		t.Fatalf("%+v %q", s, other.Warnings())
	}
	if s, notes := sessionTampered(t, openTest(l.Path()), "s1"); s.Events != 0 || len(notes) != 2 {
		t.Fatalf("update without the key: %+v %+v", s, notes)
	}
	// A log never keyed needs no key and warns of nothing.
	legacyView.View(func(tx *Tx) error { return nil }) // builds the index
	legacyView.View(func(tx *Tx) error { return nil })
	if w := legacyView.Warnings(); len(w) != 0 {
		t.Fatalf("legacy view warns %q", w)
	}
}

// A flood of forged lines for other sessions does not hide the one that
// matters.
func TestTamperNoteOfEverySession(t *testing.T) {
	l := executing(t)
	for i := range maxTamperNotes + 5 {
		forge(t, l, fmt.Sprint("decoy", i), ev("", TypeHookFired, "x", nil), "")
	}
	forge(t, l, "s1", toDone, "")
	if s, notes := sessionTampered(t, l, "s1"); s.State != "executing" || len(notes) != 1 {
		t.Fatalf("%+v %+v", s, notes)
	}
}
