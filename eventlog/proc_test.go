package eventlog

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/eventlog/logline"
)

// The multi-process tests re-execute this test binary; EVENTLOG_CHILD names what
// the child does.
const childEnv = "EVENTLOG_CHILD"

var childModes = map[string]func() int{
	"append":    childAppend,
	"crashloop": childCrashLoop,
	"onehook":   childOneHook,
}

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		fn := childModes[mode]
		if fn == nil {
			fmt.Fprintf(os.Stderr, "unknown %s=%q\n", childEnv, mode)
			os.Exit(2)
		}
		os.Exit(fn())
	}
	// Log keys go to a directory of the test's own, never the user's state
	// directory; child processes inherit it.
	if os.Getenv(StateDirEnv) == "" {
		dir, err := os.MkdirTemp("", "eventlog-state-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		os.Setenv(StateDirEnv, dir)
		code := m.Run()
		os.RemoveAll(dir)
		os.Exit(code)
	}
	os.Exit(m.Run())
}

func envInt(name string) int {
	n, err := strconv.Atoi(os.Getenv(name))
	if err != nil {
		panic(fmt.Sprintf("%s: %v", name, err))
	}
	return n
}

// hookStep is one hook run as the engine does it: read the session, decide,
// append. The first run initialises the session, the first run in state "a"
// applies the transition a→b, every run records a hook_fired whose seq is the
// number of events the run saw: under a correct lock, seq equals the event's
// position in its session.
func hookStep(tx *Tx, session string, proc, i int) error {
	s := sessionOf(tx, session)
	if s.Events == 0 {
		if _, err := tx.Append(Event{SessionID: session, State: "a", EventType: TypeSessionInitialized, Actor: "hook", Payload: map[string]any{"initial_state": "a"}}); err != nil {
			return err
		}
		s = sessionOf(tx, session)
	}
	if s.State == "a" {
		if _, err := tx.Append(Event{SessionID: session, State: "a", EventType: TypeStateTransitioned, Actor: "hook", Payload: map[string]any{"from": "a", "event": "go", "to": "b"}}); err != nil {
			return err
		}
		s = sessionOf(tx, session)
	}
	_, err := tx.Append(Event{SessionID: session, State: s.State, EventType: TypeHookFired, Actor: "hook", Payload: map[string]any{"proc": proc, "i": i, "seq": s.Events}})
	return err
}

// childAppend runs EL_COUNT hook steps on EL_SESSION of EL_LOG.
func childAppend() int {
	l := openTest(os.Getenv("EL_LOG"))
	session, proc, count := os.Getenv("EL_SESSION"), envInt("EL_PROC"), envInt("EL_COUNT")
	for i := range count {
		if err := l.Update(func(tx *Tx) error { return hookStep(tx, session, proc, i) }); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		for _, w := range l.Warnings() {
			fmt.Fprintln(os.Stderr, "warning:", w)
		}
	}
	return 0
}

// childCrashLoop appends forever (until killed), some events big enough that one
// write spans many pages and a kill can cut it. After each committed Update it
// records the event ids in EL_DONE, so the parent knows what must survive.
func childCrashLoop() int {
	l := openTest(os.Getenv("EL_LOG"))
	done, err := os.OpenFile(os.Getenv("EL_DONE"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	r := rand.New(rand.NewPCG(uint64(os.Getpid()), uint64(time.Now().UnixNano())))
	for i := 0; ; i++ {
		var ids []string
		err := l.Update(func(tx *Tx) error {
			ids = ids[:0]
			for range 1 + r.IntN(3) {
				pad := r.IntN(200)
				if r.IntN(6) == 0 {
					pad = r.IntN(256 << 10)
				}
				e, err := tx.Append(Event{SessionID: fmt.Sprint("s", r.IntN(3)), State: "x", EventType: TypeHookFired, Actor: "crash", Payload: map[string]any{"i": i, "pad": strings.Repeat("p", pad)}})
				if err != nil {
					return err
				}
				ids = append(ids, e.EventID)
			}
			return nil
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if _, err := done.WriteString(strings.Join(ids, "\n") + "\n"); err != nil {
			return 1
		}
	}
}

func child(mode string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{childEnv + "=" + mode}, env...)...)
	return cmd
}

// runHookProcs starts one process per session entry at once and waits for all.
func runHookProcs(t *testing.T, path string, sessions []string, count int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]string, len(sessions))
	for p, s := range sessions {
		cmd := child("append", "EL_LOG="+path, "EL_SESSION="+s, fmt.Sprint("EL_PROC=", p), fmt.Sprint("EL_COUNT=", count))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := cmd.Wait(); err != nil || stderr.Len() > 0 {
				errs[p] = fmt.Sprintf("process %d: %v: %s", p, err, stderr.String())
			}
		}()
	}
	wg.Wait()
	for _, e := range errs {
		if e != "" {
			t.Error(e)
		}
	}
}

// checkHookLog checks what runHookProcs must leave: every line an event, each
// session initialised and transitioned exactly once, every (proc, i) recorded
// exactly once, every seq equal to the event's position, chains and index intact.
func checkHookLog(t *testing.T, l *Log, sessions []string, count int) {
	t.Helper()
	raw, err := os.ReadFile(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(raw), "\n")
	if lines[len(lines)-1] != "" {
		t.Fatalf("log does not end with a newline")
	}
	lines = lines[:len(lines)-1]
	type key struct {
		s    string
		p, i int
	}
	seen := map[key]bool{}
	pos := map[string]int{}
	inits, trans := map[string]int{}, map[string]int{}
	for n, line := range lines {
		e, err := logline.Parse([]byte(line))
		if err != nil {
			t.Fatalf("line %d: %v: %q", n+1, err, line)
		}
		switch e.EventType {
		case TypeSessionInitialized:
			inits[e.SessionID]++
		case TypeStateTransitioned:
			trans[e.SessionID]++
		case TypeHookFired:
			k := key{e.SessionID, int(e.Payload["proc"].(float64)), int(e.Payload["i"].(float64))}
			if seen[k] {
				t.Fatalf("line %d: duplicated event %+v", n+1, k)
			}
			seen[k] = true
			if seq := int(e.Payload["seq"].(float64)); seq != pos[e.SessionID] {
				t.Fatalf("line %d: run saw %d events of %s, but %d precede it: a read-decide-append was not exclusive", n+1, seq, e.SessionID, pos[e.SessionID])
			}
		}
		pos[e.SessionID]++
	}
	distinct := map[string]int{}
	for p, s := range sessions {
		distinct[s]++
		for i := range count {
			if !seen[key{s, p, i}] {
				t.Fatalf("lost event: session %s process %d step %d", s, p, i)
			}
		}
	}
	if len(seen) != len(sessions)*count {
		t.Fatalf("%d hook events, want %d", len(seen), len(sessions)*count)
	}
	for s, procs := range distinct {
		if inits[s] != 1 || trans[s] != 1 {
			t.Fatalf("session %s: %d initialisations, %d transitions, want 1 each", s, inits[s], trans[s])
		}
		if pos[s] != procs*count+2 {
			t.Fatalf("session %s has %d events, want %d", s, pos[s], procs*count+2)
		}
	}
	r, err := l.Verify()
	if err != nil || !r.OK() || r.Events != len(lines) || r.Sessions != len(distinct) {
		t.Fatalf("verify: %+v %v", r, err)
	}
	assertConsistent(t, l)
	if w := l.Warnings(); len(w) != 0 {
		t.Fatalf("index was not current after the last append: %q", w)
	}
}

func TestConcurrentProcesses32OneSession(t *testing.T) {
	l := newLog(t)
	sessions := make([]string, 32)
	for i := range sessions {
		sessions[i] = "shared"
	}
	runHookProcs(t, l.Path(), sessions, 10)
	checkHookLog(t, l, sessions, 10)
}

func TestConcurrentProcesses64(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 128 processes")
	}
	t.Run("one session", func(t *testing.T) {
		l := newLog(t)
		sessions := make([]string, 64)
		for i := range sessions {
			sessions[i] = "shared"
		}
		runHookProcs(t, l.Path(), sessions, 5)
		checkHookLog(t, l, sessions, 5)
	})
	t.Run("64 sessions", func(t *testing.T) {
		l := newLog(t)
		sessions := make([]string, 64)
		for i := range sessions {
			sessions[i] = fmt.Sprintf("session-%02d", i)
		}
		runHookProcs(t, l.Path(), sessions, 5)
		checkHookLog(t, l, sessions, 5)
	})
}

// Goroutines of one process sharing a Log, and several Logs on one file.
func TestConcurrentGoroutines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	shared := openTest(path)
	sessions := make([]string, 16)
	var wg sync.WaitGroup
	for p := range sessions {
		sessions[p] = fmt.Sprint("g", p%4)
		l := shared
		if p%2 == 1 {
			l = openTest(path)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				if err := l.Update(func(tx *Tx) error { return hookStep(tx, sessions[p], p, i) }); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	checkHookLog(t, shared, sessions, 10)
}

// TestCrashKill kills an appending process at random moments, many times. After
// each kill every event the child committed is in the log, every complete line
// parses, a torn tail is skipped, and the next append works with chains intact.
func TestCrashKill(t *testing.T) {
	iterations := 40
	if testing.Short() {
		iterations = 8
	}
	r := rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano())))
	torn, rebuilt := 0, 0
	var l *Log
	var done string
	for it := range iterations {
		if it%8 == 0 {
			// A fresh log now and then keeps the checks' full reads small.
			dir := t.TempDir()
			l, done = openTest(filepath.Join(dir, "events.jsonl")), filepath.Join(dir, "done.txt")
		}
		cmd := child("crashloop", "EL_LOG="+l.Path(), "EL_DONE="+done)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(20+r.IntN(60)) * time.Millisecond)
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		if stderr.Len() > 0 {
			t.Fatalf("iteration %d: child failed: %s", it, stderr.String())
		}

		have := map[string]bool{}
		var warns []string
		if err := l.Scan(func(w string) { warns = append(warns, w) }, func(_ int, e Event) error {
			have[e.EventID] = true
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		for _, w := range warns {
			if strings.Contains(w, "torn last line") {
				torn++
			} else if !strings.Contains(w, "skipped: not valid JSON") {
				// Earlier torn tails, closed by a repair, stay as unparseable lines.
				t.Fatalf("iteration %d: unexpected warning %q", it, w)
			}
		}
		committed, _ := os.ReadFile(done)
		for _, id := range strings.Fields(string(committed)) {
			if !have[id] {
				t.Fatalf("iteration %d: committed event %s is missing from the log", it, id)
			}
		}
		// Now and then the index is damaged too (its snapshot half written by
		// a disk that failed, say): the next hook rebuilds it. (A delta cut
		// short is what a kill leaves: the index ends before it, no rebuild.)
		damaged := it%5 == 4
		if damaged {
			// A child killed before its first commit left no index to damage.
			b, err := os.ReadFile(l.IndexPath())
			if damaged = err == nil && len(b) > 1; damaged {
				_, _, snapshot, _ := nextRecord(b, 0)
				os.WriteFile(l.IndexPath(), b[:max(snapshot, 2)/2], 0o644)
			}
		}
		// The parent is the next hook: it must work.
		if err := l.Update(func(tx *Tx) error {
			_, err := tx.Append(Event{SessionID: "s0", State: "x", EventType: TypeHookFired, Actor: "parent"})
			return err
		}); err != nil {
			t.Fatalf("iteration %d: append after crash: %v", it, err)
		}
		wasRebuilt := false
		for _, w := range l.Warnings() {
			if strings.Contains(w, "index rebuilt") {
				wasRebuilt = true
				rebuilt++
			}
		}
		if damaged && !wasRebuilt {
			t.Fatalf("iteration %d: damaged index not rebuilt (warnings %q)", it, l.Warnings())
		}
		if vr, err := l.Verify(); err != nil || !vr.OK() {
			t.Fatalf("iteration %d: verify: %+v %v", it, vr, err)
		}
		assertConsistent(t, l)
	}
	t.Logf("%d iterations: %d torn tails seen, %d index rebuilds", iterations, torn, rebuilt)
}
