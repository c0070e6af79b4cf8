package eventlog

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// smallCheckpoints makes checkpoints due every few KiB and looked for on any
// cold start, so small test logs have several.
func smallCheckpoints(t *testing.T) {
	t.Helper()
	every, search := checkpointEveryBytes, checkpointSearchBytes
	checkpointEveryBytes, checkpointSearchBytes = 4<<10, 1
	t.Cleanup(func() { checkpointEveryBytes, checkpointSearchBytes = every, search })
}

// checkpointLog appends 40 Updates of 10 events over 4 sessions, each ending in
// s1's transition to state st<i>, and returns the lines of the log that are
// checkpoints (0-based).
func checkpointLog(t *testing.T, l *Log) []int {
	t.Helper()
	for i := range 40 {
		var evs []Event
		for j := range 10 {
			evs = append(evs, ev(fmt.Sprint("s", j%4), TypeHookFired, fmt.Sprint("st", i), map[string]any{"pad": strings.Repeat("x", 40)}))
		}
		evs = append(evs, ev("s1", TypeStateTransitioned, "", map[string]any{"to": fmt.Sprint("st", i)}))
		appendAll(t, l, evs...)
	}
	var cps []int
	for i, line := range readLines(t, l.Path()) {
		if IsCheckpoint([]byte(line)) {
			cps = append(cps, i)
		}
	}
	if len(cps) < 3 {
		t.Fatalf("%d checkpoints written, want several", len(cps))
	}
	return cps
}

// rebuild drops the index and folds the log again (a View), returning the
// index it wrote and the warnings.
func rebuild(t *testing.T, l *Log) ([]byte, string) {
	t.Helper()
	os.Remove(l.IndexPath())
	l.tailRead = 0
	if err := l.View(func(*Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	idx, err := os.ReadFile(l.IndexPath())
	if err != nil {
		t.Fatal(err)
	}
	return idx, strings.Join(l.Warnings(), "\n")
}

// A cold start from the newest checkpoint comes to the very index a fold of
// the whole log does, reading only the lines after the checkpoint.
func TestCheckpointColdStartMatchesFullFold(t *testing.T) {
	smallCheckpoints(t)
	l := newLog(t)
	cps := checkpointLog(t, l)
	assertConsistent(t, l)

	checkpointSearchBytes = 1 << 40 // no checkpoint: the whole log
	full, warn := rebuild(t, l)
	if !strings.Contains(warn, "rebuilt from the whole log") {
		t.Fatalf("warnings %q", warn)
	}
	checkpointSearchBytes = 1
	fromCP, warn := rebuild(t, l)
	if want := fmt.Sprintf("rebuilt from the checkpoint at line %d", cps[len(cps)-1]+1); !strings.Contains(warn, want) {
		t.Fatalf("warnings %q, want %q", warn, want)
	}
	if !bytes.Equal(full, fromCP) {
		t.Fatalf("index from the checkpoint differs from a full fold:\n%s\n%s", fromCP, full)
	}
	size := mustStat(t, l.Path()).Size()
	if l.tailRead > size/4 {
		t.Fatalf("folded %d of %d bytes, want only the tail after the checkpoint", l.tailRead, size)
	}
	assertConsistent(t, l)

	// A checkpoint is not an event: Scan skips it without a word, Verify
	// checks it and finds the log intact.
	var warns []string
	n := 0
	if err := l.Scan(func(w string) { warns = append(warns, w) }, func(int, Event) error { n++; return nil }); err != nil || n != 40*11 || len(warns) != 0 {
		t.Fatalf("scan: %d events, warnings %q, %v", n, warns, err)
	}
	r, err := l.Verify()
	if err != nil || !r.OK() || r.Events != 40*11 || r.Skipped != 0 || r.Lines != 40*11+len(cps) {
		t.Fatalf("verify %+v %v", r, err)
	}
}

// Checkpoints of another Folder (hook-loop upgraded, its views changed) are
// not used, and the search stops at the newest: the older are no better.
func TestCheckpointOfAnotherFolder(t *testing.T) {
	smallCheckpoints(t)
	l := newLog(t)
	checkpointLog(t, l)
	other := Open(l.Path(), otherFolder{})
	os.Remove(l.IndexPath())
	if err := other.View(func(*Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	w := strings.Join(other.Warnings(), "\n")
	if strings.Count(w, "checkpoint passed over") != 1 || !strings.Contains(w, `views folded by "eventlog-test/1"`) || !strings.Contains(w, "rebuilt from the whole log") {
		t.Fatalf("warnings %q", w)
	}
}

// editLine replaces line i of the log.
func editLine(t *testing.T, l *Log, i int, edit func(string) string) {
	t.Helper()
	lines := readLines(t, l.Path())
	lines[i] = edit(lines[i])
	os.WriteFile(l.Path(), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

// The keyed log's rules hold with checkpoints: a forged line after the
// newest checkpoint is not honoured; an edited checkpoint or an old one
// copied to the end is not believed (the rebuild falls back to an older
// checkpoint, and the session is not rolled back), is noted as tampering, and
// `log verify` names its line.
func TestCheckpointTamper(t *testing.T) {
	smallCheckpoints(t)
	t.Run("forged line after the checkpoint", func(t *testing.T) {
		l := newLog(t)
		checkpointLog(t, l)
		forge(t, l, "s1", toDone, strings.Repeat("ab", 32))
		os.Remove(l.IndexPath())
		s, notes := sessionTampered(t, l, "s1")
		if s.State != "st39" || len(notes) != 1 || !strings.Contains(notes[0].Reason, "MAC does not match") || !notes[0].New {
			t.Fatalf("%+v %+v", s, notes)
		}
		if w := strings.Join(l.Warnings(), "\n"); !strings.Contains(w, "rebuilt from the checkpoint") {
			t.Fatalf("warnings %q", w)
		}
	})
	t.Run("edited checkpoint", func(t *testing.T) {
		l := newLog(t)
		cps := checkpointLog(t, l)
		last := cps[len(cps)-1]
		// The agent marks s1 done in the newest checkpoint's view, keeping the MAC.
		editLine(t, l, last, func(s string) string {
			out := strings.Replace(s, `"state":"st`, `"state":"done`, -1)
			if out == s {
				t.Fatal("nothing to edit")
			}
			return out
		})
		_, warn := rebuild(t, l)
		if want := fmt.Sprintf("rebuilt from the checkpoint at line %d", cps[len(cps)-2]+1); !strings.Contains(warn, "MAC does not match") || !strings.Contains(warn, want) {
			t.Fatalf("warnings %q, want %q", warn, want)
		}
		assertConsistent(t, l)
		s, notes := sessionTampered(t, l, "s1")
		if s.State != "st39" || len(notes) != 1 || notes[0].Line != last+1 || notes[0].Session != "" || !strings.Contains(notes[0].Reason, "checkpoint MAC does not match") {
			t.Fatalf("%+v %+v", s, notes)
		}
		r, err := l.Verify()
		if err != nil || r.OK() || r.TamperedCount != 1 || r.Tampered[0].Line != last+1 {
			t.Fatalf("verify %+v %v", r, err)
		}
	})
	t.Run("old checkpoint copied to the end", func(t *testing.T) {
		l := newLog(t)
		cps := checkpointLog(t, l)
		lines := readLines(t, l.Path())
		f, _ := os.OpenFile(l.Path(), os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString(lines[cps[0]] + "\n") // a genuine checkpoint from when s1 was in an early state
		f.Close()
		_, warn := rebuild(t, l)
		if !strings.Contains(warn, "copied") || !strings.Contains(warn, fmt.Sprintf("checkpoint at line %d", cps[len(cps)-1]+1)) {
			t.Fatalf("warnings %q", warn)
		}
		assertConsistent(t, l)
		s, notes := sessionTampered(t, l, "s1")
		if s.State != "st39" || len(notes) != 1 || notes[0].Line != len(lines)+1 || !strings.Contains(notes[0].Reason, "copied") {
			t.Fatalf("rolled back or not noted: %+v %+v", s, notes)
		}
		r, err := l.Verify()
		if err != nil || r.OK() || r.TamperedCount != 1 || r.Tampered[0].Line != len(lines)+1 {
			t.Fatalf("verify %+v %v", r, err)
		}
	})
	t.Run("many forged checkpoints", func(t *testing.T) {
		l := newLog(t)
		checkpointLog(t, l)
		f, _ := os.OpenFile(l.Path(), os.O_APPEND|os.O_WRONLY, 0)
		for range 300 {
			f.WriteString(`{"hook_loop_checkpoint":1,"header":{"offset":0},"sessions":[],"mac":"` + strings.Repeat("0", 64) + `"}` + "\n")
		}
		f.Close()
		_, warn := rebuild(t, l)
		if n := strings.Count(warn, "checkpoint passed over"); n != 5 || !strings.Contains(warn, "and 296 more") || !strings.Contains(warn, "rebuilt from the checkpoint") {
			t.Fatalf("%d passed-over warnings:\n%s", n, warn)
		}
		assertConsistent(t, l)
		if s, notes := sessionTampered(t, l, "s1"); s.State != "st39" || len(notes) != maxTamperNotes {
			t.Fatalf("%+v, %d notes", s, len(notes))
		}
	})
	t.Run("line before a checkpoint edited", func(t *testing.T) {
		l := newLog(t)
		cps := checkpointLog(t, l)
		// The checkpoint vouches for what was folded before it: s1's state
		// stays what hook-loop saw, and verify still names the edited line.
		editLine(t, l, cps[len(cps)-1]-1, func(s string) string { return strings.Replace(s, `"st`, `"xx`, 1) })
		s, _ := sessionTampered(t, l, "s1")
		if s.State != "st39" {
			t.Fatalf("%+v", s)
		}
		r, err := l.Verify()
		if err != nil || r.OK() || r.Tampered[0].Line != cps[len(cps)-1] {
			t.Fatalf("verify %+v %v", r, err)
		}
	})
	t.Run("torn checkpoint", func(t *testing.T) {
		l := newLog(t)
		checkpointLog(t, l)
		lines := readLines(t, l.Path())
		cp := lines[len(lines)-1]
		if !IsCheckpoint([]byte(cp)) {
			t.Skip("the last Update wrote no checkpoint")
		}
		// A crash cut the checkpoint short; the next hook closes it and appends.
		os.WriteFile(l.Path(), []byte(strings.Join(lines[:len(lines)-1], "\n")+"\n"+cp[:len(cp)/2]), 0o644)
		appendAll(t, l, ev("s1", TypeHookFired, "st39", nil))
		s, notes := sessionTampered(t, l, "s1")
		if s.State != "st39" || len(notes) != 0 {
			t.Fatalf("%+v %+v", s, notes)
		}
		checkpointSearchBytes = 1 << 40 // fold the torn line
		_, warn := rebuild(t, l)
		if !strings.Contains(warn, "checkpoint line is not valid JSON") || strings.Contains(warn, "not honoured") {
			t.Fatalf("warnings %q", warn)
		}
		assertConsistent(t, l)
	})
}

// A fold that runs out of its budget saves its progress in the index and
// fails without running fn; the next runs go on from there until the index is
// whole, and a line not honoured in an earlier run is still reported as new
// to the Update that first sees it.
func TestFoldBudget(t *testing.T) {
	l := newLog(t)
	var evs []Event
	for i := range 2500 {
		evs = append(evs, ev(fmt.Sprint("s", i%3), TypeHookFired, fmt.Sprint("st", i), nil))
	}
	appendAll(t, l, evs...)
	forge(t, l, "s1", toDone, "")
	appendAll(t, l, ev("s1", TypeHookFired, "last", nil))
	os.Remove(l.IndexPath())

	// Every deadline has passed: each run folds its least, 1024 lines.
	bounded := Open(l.Path(), testFolder{}, WithFoldBudget(time.Nanosecond))
	failed := 0
	for {
		ran := false
		var notes []TamperNote
		err := bounded.Update(func(tx *Tx) error { ran, notes = true, tx.Tampered("s1"); return nil })
		if err == nil {
			if !ran || len(notes) != 1 || !notes[0].New || notes[0].Line != 2501 {
				t.Fatalf("ran %v, notes %+v", ran, notes)
			}
			break
		}
		var fe *FoldBudgetError
		if !errors.Is(err, ErrFoldBudget) || !errors.As(err, &fe) || ran || fe.Folded <= 0 {
			t.Fatalf("run %d: %v (ran %v)", failed+1, err, ran)
		}
		if failed++; failed > 10 {
			t.Fatal("no progress")
		}
	}
	if failed != 2 {
		t.Fatalf("%d runs out of budget, want 2 (2502 lines, 1024 a run)", failed)
	}
	assertConsistent(t, l)
	// A View has no budget unless one is given.
	os.Remove(l.IndexPath())
	if err := Open(l.Path(), testFolder{}).View(func(*Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
}

// A hook's Update folds within half its lock timeout unless told otherwise; a
// View (a person's status) and a Log without a Folder (no index to keep
// progress in) are not bounded.
func TestFoldBudgetDefaults(t *testing.T) {
	path := t.TempDir() + "/events.jsonl"
	l := Open(path, testFolder{}, WithLockTimeout(4*time.Second))
	if d := time.Until(l.foldDeadline(false)); d <= 0 || d > 2*time.Second {
		t.Fatalf("Update's budget %s, want 2s", d)
	}
	if !l.foldDeadline(true).IsZero() || !Open(path, nil).foldDeadline(false).IsZero() {
		t.Fatal("View or folder-less Log bounded")
	}
	if d := time.Until(Open(path, testFolder{}, WithFoldBudget(time.Second)).foldDeadline(true)); d <= 0 || d > time.Second {
		t.Fatalf("View with a budget: %s", d)
	}
	if !Open(path, testFolder{}, WithFoldBudget(-1)).foldDeadline(false).IsZero() {
		t.Fatal("WithFoldBudget(-1) bounded")
	}
}

// Long lines do not stretch a run past its budget: the clock is read by bytes
// folded too, not only by lines.
func TestFoldBudgetLongLines(t *testing.T) {
	l := newLog(t)
	for i := range 20 {
		appendAll(t, l, ev("s1", TypeHookFired, fmt.Sprint("st", i), map[string]any{"pad": strings.Repeat("x", 300<<10)}))
	}
	os.Remove(l.IndexPath())
	bounded := Open(l.Path(), testFolder{}, WithFoldBudget(time.Nanosecond))
	failed := 0
	for {
		err := bounded.Update(func(*Tx) error { return nil })
		var fe *FoldBudgetError
		if err == nil {
			break
		}
		if !errors.As(err, &fe) || fe.Folded > 2<<20 {
			t.Fatalf("run %d: %v", failed+1, err)
		}
		if failed++; failed > 20 {
			t.Fatal("no progress")
		}
	}
	if failed < 3 {
		t.Fatalf("%d runs out of budget, want one a MiB or so", failed)
	}
	assertConsistent(t, l)
}
