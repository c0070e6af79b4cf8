package eventlog

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// needFileSig skips where a Cache keeps nothing (no file times read).
func needFileSig(t *testing.T) {
	if _, ok := lstatSig(t.TempDir()); !ok {
		t.Skip("no file signatures on this platform: a Cache keeps nothing")
	}
}

// cachedAppend appends evs in one Update of a Log opened for this call with c,
// as the co-process's hook path opens one per request; it returns the heads of
// the sessions it appended to as the Update saw them afterwards.
func cachedAppend(t *testing.T, path string, c *Cache, evs ...Event) (*Log, map[string]Head) {
	t.Helper()
	l := Open(path, testFolder{}, WithCache(c))
	heads := map[string]Head{}
	err := l.Update(func(tx *Tx) error {
		for _, e := range evs {
			if _, err := tx.Append(e); err != nil {
				return err
			}
			heads[e.SessionID] = tx.Head(e.SessionID)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	return l, heads
}

// assertFresh checks that a Log without a cache (another process) reads the
// index the cached Updates left without doubting it, and that it matches a
// full fold of the log.
func assertFresh(t *testing.T, path string) {
	t.Helper()
	l := openTest(path)
	assertConsistent(t, l)
	if w := l.Warnings(); len(w) != 0 {
		t.Fatalf("a fresh reader of the index warns %q", w)
	}
}

// Updates that nothing else interleaves with read the index once, whatever
// they write (deltas, a compaction, a checkpoint, several sessions), and leave
// an index a one-shot hook takes as it is.
func TestCacheReadsIndexOnce(t *testing.T) {
	needFileSig(t)
	smallCheckpoints(t)
	path := filepath.Join(t.TempDir(), ".hook-loop", "events.jsonl")
	c := NewCache()
	before := indexReads.Load()
	const n = 3*maxDeltas + 5
	for i := range n {
		cachedAppend(t, path, c, ev(fmt.Sprint("s", i%3), TypeHookFired, "x", map[string]any{"i": i}))
	}
	if got := indexReads.Load() - before; got != 1 {
		t.Fatalf("%d Updates read the index %d times, want once", n, got)
	}
	if s := c.Stats(path); s != (CacheStats{Reused: n - 1, Loaded: 1}) {
		t.Fatalf("stats %+v", s)
	}
	if cps := strings.Count(readFileT(t, path), checkpointPrefix); cps == 0 {
		t.Fatal("no checkpoint written: the test does not cover one")
	}
	assertFresh(t, path)
	// The cached fold is still the log's after a fresh reader looked (a View
	// that found nothing to refresh leaves the index alone).
	cachedAppend(t, path, c, ev("s0", TypeHookFired, "x", nil))
	if s := c.Stats(path); s.Loaded != 1 {
		t.Fatalf("stats after a View %+v", s)
	}
	assertFresh(t, path)
}

func readFileT(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Whatever another process does to the log, its index or its key between two
// Updates, the second reads them again and sees it.
func TestCacheSeesOtherWriters(t *testing.T) {
	needFileSig(t)
	cases := []struct {
		name  string
		other func(t *testing.T, path string)
		check func(t *testing.T, l *Log, heads map[string]Head)
		// tampered is how many lines a fresh fold does not honour after.
		tampered int
		// trusted: the change is one a one-shot hook's index check does not
		// see either (it trusts its index for the lines it covers), so a
		// fresh reader's fold is not compared with a full fold.
		trusted bool
	}{
		{"another process appends", func(t *testing.T, path string) {
			appendAll(t, openTest(path), ev("s", TypeHookFired, "other", nil))
		}, func(t *testing.T, l *Log, heads map[string]Head) {
			if heads["s"].Events != 5 {
				t.Fatalf("head %+v: the other process's event is not counted", heads["s"])
			}
		}, 0, false},
		{"raw append of a replayed line", func(t *testing.T, path string) {
			first := readLines(t, path)[0]
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(f, first)
			f.Close()
		}, func(t *testing.T, l *Log, heads map[string]Head) {
			if !strings.Contains(strings.Join(l.Warnings(), "\n"), "not honoured") {
				t.Fatalf("the replayed line was not seen: warnings %q", l.Warnings())
			}
		}, 1, false},
		{"truncated and rewritten to the same size", func(t *testing.T, path string) {
			// The last line's timestamp, digit for digit: same size.
			lines := readLines(t, path)
			last := lines[len(lines)-1]
			i := strings.Index(last, `"timestamp":"`) + len(`"timestamp":"`)
			d := byte('1')
			if last[i] == '1' {
				d = '2'
			}
			lines[len(lines)-1] = last[:i] + string(d) + last[i+1:]
			if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, func(t *testing.T, l *Log, heads map[string]Head) {
			if !strings.Contains(strings.Join(l.Warnings(), "\n"), "rewritten") {
				t.Fatalf("the rewrite was not seen: warnings %q", l.Warnings())
			}
		}, 1, false},
		{"a middle line rewritten, first and last kept", func(t *testing.T, path string) {
			lines := readLines(t, path)
			mid := lines[1]
			i := strings.Index(mid, `"timestamp":"`) + len(`"timestamp":"`)
			lines[1] = mid[:i] + "9" + mid[i+1:]
			if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			// Within one timestamp tick of the last Update the times may not
			// move: make them, as a rewrite later than that would.
			old := time.Now().Add(-time.Hour)
			if err := os.Chtimes(path, old, old); err != nil {
				t.Fatal(err)
			}
		}, nil, 0, true},
		{"truncated by a line", func(t *testing.T, path string) {
			lines := readLines(t, path)
			if err := os.WriteFile(path, []byte(strings.Join(lines[:len(lines)-1], "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, func(t *testing.T, l *Log, heads map[string]Head) {
			if heads["s"].Events != 3 {
				t.Fatalf("head %+v: the truncation is not seen", heads["s"])
			}
		}, 0, false},
		{"replaced by a copy", func(t *testing.T, path string) {
			replaceWithCopy(t, path)
		}, nil, 0, false},
		{"index removed", func(t *testing.T, path string) {
			os.Remove(path + ".idx")
		}, func(t *testing.T, l *Log, heads map[string]Head) {
			if !strings.Contains(strings.Join(l.Warnings(), "\n"), "index rebuilt") {
				t.Fatalf("warnings %q", l.Warnings())
			}
		}, 0, false},
		{"index appended to by another folder's View", func(t *testing.T, path string) {
			if err := Open(path, otherFolder{}).View(func(*Tx) error { return nil }); err != nil {
				t.Fatal(err)
			}
		}, nil, 0, false},
		{"key file replaced", func(t *testing.T, path string) {
			kp, err := KeyPath(path)
			if err != nil {
				t.Fatal(err)
			}
			replaceWithCopy(t, kp)
		}, nil, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), ".hook-loop", "events.jsonl")
			c := NewCache()
			for range 3 {
				cachedAppend(t, path, c, ev("s", TypeHookFired, "x", nil))
			}
			if s := c.Stats(path); s != (CacheStats{Reused: 2, Loaded: 1}) {
				t.Fatalf("stats before %+v", s)
			}
			tc.other(t, path)
			l, heads := cachedAppend(t, path, c, ev("s", TypeHookFired, "x", nil))
			if s := c.Stats(path); s != (CacheStats{Reused: 2, Loaded: 2}) {
				t.Fatalf("stats after %+v: the change was not noticed", s)
			}
			if tc.check != nil {
				tc.check(t, l, heads)
			}
			// The event appended after the change continues the chain of
			// what the log holds now: a fresh fold honours it.
			fresh := openTest(path)
			var tampered int
			fresh.View(func(tx *Tx) error { tampered = tx.TamperedLines(); return nil })
			if tc.trusted {
				return
			}
			if tampered != tc.tampered {
				t.Fatalf("%d lines not honoured after the change, want %d", tampered, tc.tampered)
			}
			assertConsistent(t, fresh)
		})
	}
}

// replaceWithCopy puts a copy of the file at path in its place: the same
// bytes in another file.
func replaceWithCopy(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tmp := path + ".copy"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// An Update whose fn fails keeps nothing: what it appended to the fold was
// never written, so the next Update reads the log again.
func TestCacheKeepsNothingFromAFailedUpdate(t *testing.T) {
	needFileSig(t)
	path := filepath.Join(t.TempDir(), ".hook-loop", "events.jsonl")
	c := NewCache()
	cachedAppend(t, path, c, ev("s", TypeHookFired, "x", nil))
	boom := errors.New("boom")
	err := Open(path, testFolder{}, WithCache(c)).Update(func(tx *Tx) error {
		if _, err := tx.Append(ev("s", TypeHookFired, "lost", nil)); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update: %v", err)
	}
	_, heads := cachedAppend(t, path, c, ev("s", TypeHookFired, "x", nil))
	if heads["s"].Events != 2 {
		t.Fatalf("head %+v: the failed Update's event was kept", heads["s"])
	}
	if s := c.Stats(path); s.Loaded != 2 {
		t.Fatalf("stats %+v", s)
	}
	assertFresh(t, path)
}

// Two Logs of this process on one Cache and one log (two goroutines of one
// co-process): the lock orders them, and each sees the other's events.
func TestCacheConcurrentUpdates(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".hook-loop", "events.jsonl")
	c := NewCache()
	const n = 20
	done := make(chan struct{})
	for g := range 2 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range n {
				l := Open(path, testFolder{}, WithCache(c))
				if err := l.Update(func(tx *Tx) error {
					_, err := tx.Append(ev(fmt.Sprint("g", g), TypeHookFired, "x", map[string]any{"i": i}))
					return err
				}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	<-done
	<-done
	_, heads := cachedAppend(t, path, c, ev("g0", TypeHookFired, "x", nil))
	if heads["g0"].Events != n+1 {
		t.Fatalf("head %+v", heads["g0"])
	}
	assertFresh(t, path)
}

// Cached Updates interleaved at random with what other processes and people
// do to the log, its index and its key: every cached Update sees exactly a
// full fold of the log as it is (the changes here are all ones a one-shot
// hook's index check sees too), and the log stays one a fresh reader trusts.
func TestCacheDifferential(t *testing.T) {
	needFileSig(t)
	smallCheckpoints(t)
	for seed := range int64(6) {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			r := rand.New(rand.NewSource(seed))
			path := filepath.Join(t.TempDir(), ".hook-loop", "events.jsonl")
			c := NewCache()
			cachedAppend(t, path, c, ev("s0", TypeSessionInitialized, "a", nil))
			var did []string
			for step := range 80 {
				op := r.Intn(12)
				switch op {
				case 0:
					appendAll(t, openTest(path), ev(fmt.Sprint("s", r.Intn(4)), TypeHookFired, "other", nil))
				case 1:
					lines := readLines(t, path)
					appendRaw(t, path, lines[r.Intn(len(lines))]+"\n")
				case 2:
					appendRaw(t, path, `{"schema_version":1,"session_id":"s1","ev`)
				case 3:
					lines := readLines(t, path)
					n := 1 + r.Intn(len(lines))
					if err := os.WriteFile(path, []byte(strings.Join(lines[:n], "\n")+"\n"), 0o644); err != nil {
						t.Fatal(err)
					}
				case 4:
					replaceWithCopy(t, path)
				case 5:
					os.Remove(path + ".idx")
				case 6:
					Open(path, otherFolder{}).View(func(*Tx) error { return nil })
				case 7:
					old := time.Now().Add(-time.Duration(r.Intn(1000)) * time.Second)
					os.Chtimes(path, old, old)
				default:
					op = -1 // only the co-process
				}
				did = append(did, fmt.Sprint(op))
				want, wantProject, wantIDs := fullFold(t, openTest(path))
				l := Open(path, testFolder{}, WithCache(c))
				err := l.Update(func(tx *Tx) error {
					ids := tx.SessionIDs()
					if fmt.Sprint(ids) != fmt.Sprint(wantIDs) {
						return fmt.Errorf("sessions %q, a full fold has %q", ids, wantIDs)
					}
					for _, id := range ids {
						if got := sessionOf(tx, id); got != want[id] {
							return fmt.Errorf("session %s: %+v, a full fold has %+v", id, got, want[id])
						}
					}
					p := projectOf(tx)
					p.LastHash, wantProject.LastHash = "", ""
					if p != wantProject {
						return fmt.Errorf("project %+v, a full fold has %+v", p, wantProject)
					}
					_, err := tx.Append(ev(fmt.Sprint("s", r.Intn(4)), TypeHookFired, "x", map[string]any{"step": step}))
					return err
				})
				if err != nil {
					t.Fatalf("step %d after ops %v: %v", step, did, err)
				}
			}
			if s := c.Stats(path); s.Reused == 0 || s.Loaded < 2 {
				t.Fatalf("stats %+v: the test does not cover both paths", s)
			}
			assertConsistent(t, openTest(path))
		})
	}
}

func appendRaw(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// Updates with a Cache open the log once and go on with the file the last
// one kept open while the log's path names it; a log removed, replaced or
// turned into a link is the path's again at the next Update, and the kept
// file is closed.
func TestCacheKeepsTheLogOpen(t *testing.T) {
	needFileSig(t)
	if runtime.GOOS == "windows" {
		t.Skip("no file identity here (stillAt): the log is opened at every Update")
	}
	path := filepath.Join(t.TempDir(), ".hook-loop", "events.jsonl")
	c := NewCache()
	before := logOpens.Load()
	for range 5 {
		cachedAppend(t, path, c, ev("s", TypeHookFired, "x", nil))
	}
	if got := logOpens.Load() - before; got != 1 {
		t.Fatalf("5 Updates opened the log %d times, want once", got)
	}
	for _, change := range []struct {
		name string
		do   func(t *testing.T)
		// events: how many the path's log holds after the next Update.
		events int
	}{
		{"removed", func(t *testing.T) { os.Remove(path) }, 1},
		{"replaced by a copy", func(t *testing.T) { replaceWithCopy(t, path) }, 2},
	} {
		old := keptFile(t, c, path)
		change.do(t)
		cachedAppend(t, path, c, ev("s", TypeHookFired, change.name, nil))
		if got := len(readLines(t, path)); got != change.events {
			t.Fatalf("%s: the log at the path has %d lines, want %d: the event went to the kept file", change.name, got, change.events)
		}
		if _, err := old.Stat(); !errors.Is(err, os.ErrClosed) {
			t.Fatalf("%s: the file kept before is still open (%v)", change.name, err)
		}
		if keptFile(t, c, path) == old {
			t.Fatalf("%s: the old file is kept still", change.name)
		}
	}
	// A link in the log's place is refused as at any open, kept file or not.
	old := keptFile(t, c, path)
	target := filepath.Join(t.TempDir(), "elsewhere.jsonl")
	if err := os.Rename(path, target); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Skip("no symbolic links here")
	}
	err := Open(path, testFolder{}, WithCache(c)).Update(func(tx *Tx) error {
		_, err := tx.Append(ev("s", TypeHookFired, "x", nil))
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("Update through a link: %v", err)
	}
	if _, err := old.Stat(); !errors.Is(err, os.ErrClosed) {
		t.Fatalf("the file kept before the link is still open (%v)", err)
	}
}

// keptFile is the log file c keeps open for the log at path.
func keptFile(t *testing.T, c *Cache, path string) *os.File {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.entries {
		if k.path == path && e.kept != nil && e.kept.file != nil {
			return e.kept.file
		}
	}
	t.Fatalf("no file kept for %s", path)
	return nil
}
