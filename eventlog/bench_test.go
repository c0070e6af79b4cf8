package eventlog

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// benchLog builds a log of n events over 8 interleaved sessions, with the index
// current, as a long-running project would have.
func benchLog(b *testing.B, n int) *Log {
	b.Helper()
	l := openTest(filepath.Join(b.TempDir(), ".hook-loop", "events.jsonl"))
	const batch = 5000
	for done := 0; done < n; {
		err := l.Update(func(tx *Tx) error {
			for i := 0; i < batch && done < n; i, done = i+1, done+1 {
				e := Event{SessionID: fmt.Sprintf("019a2b6c-7f3e-7c21-9d55-%012d", done%8), RunID: "run-1", State: "building", EventType: TypeHookFired, Actor: "codex",
					Payload: map[string]any{"codex_event": "PostToolUse", "tool_name": "Bash", "command": "go test ./...", "exit_code": 0}}
				if done%50 == 0 {
					e.EventType = TypeStateTransitioned
					e.Payload = map[string]any{"from": "planning", "event": "plan_ready", "to": "building"}
				}
				if _, err := tx.Append(e); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return l
}

// reportCPU adds the CPU time per operation (user+system), which a busy machine
// does not inflate the way it inflates wall time.
func reportCPU(b *testing.B, d time.Duration) {
	if d > 0 && b.N > 0 {
		b.ReportMetric(float64(d.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

func benchSizes() []int {
	sizes := []int{0, 10_000, 100_000}
	if os.Getenv("EVENTLOG_BENCH_1M") != "" {
		sizes = append(sizes, 1_000_000)
	}
	return sizes
}

// BenchmarkUpdate is one hook run's log work: lock, recover the session from the
// index, decide, append two events, update the index. Set EVENTLOG_BENCH_1M=1 to
// add a 1,000,000-event log.
func BenchmarkUpdate(b *testing.B) {
	for _, n := range benchSizes() {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			path := benchLog(b, n).Path()
			session := fmt.Sprintf("019a2b6c-7f3e-7c21-9d55-%012d", 3)
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			defer func() { reportCPU(b, cpuTime()-cpu0) }()
			for b.Loop() {
				l := openTest(path) // a hook process starts with nothing cached
				err := l.Update(func(tx *Tx) error {
					s := sessionOf(tx, session)
					if _, err := tx.Append(Event{SessionID: session, State: s.State, EventType: TypeHookFired, Actor: "codex", Payload: map[string]any{"codex_event": "PreToolUse", "tool_name": "Bash"}}); err != nil {
						return err
					}
					_, err := tx.Append(Event{SessionID: session, State: s.State, EventType: TypeEvidenceRegistered, Actor: "codex", Payload: map[string]any{"command": "go test ./...", "exit_code": 0}})
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkView is a read-only hook run (status, a decision with nothing to record).
func BenchmarkView(b *testing.B) {
	for _, n := range benchSizes() {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			path := benchLog(b, n).Path()
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			defer func() { reportCPU(b, cpuTime()-cpu0) }()
			for b.Loop() {
				l := openTest(path)
				if err := l.View(func(tx *Tx) error { _ = sessionOf(tx, "x"); return nil }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRebuild is a cold start: the index is missing, at 10,000 events,
// and 1,000,000 with EVENTLOG_BENCH_1M=1 (budget: 1 s). Each size is measured
// three ways on one log:
//
//   - at-checkpoint: the log ending in a checkpoint, as after a hook that
//     wrote one;
//   - tail: the worst case with checkpoints, the log ending just before the
//     next checkpoint is due (the most it ever folds past one);
//   - no-checkpoint: the whole log folded, as a log from before checkpoints
//     (and every cold start before them) costs.
func BenchmarkRebuild(b *testing.B) {
	sizes := []int{10_000}
	if os.Getenv("EVENTLOG_BENCH_1M") != "" {
		sizes = append(sizes, 1_000_000)
	}
	for _, n := range sizes {
		l := benchLog(b, n)
		for _, c := range []struct {
			name   string
			search int64
		}{
			{"at-checkpoint", checkpointSearchBytes},
			{"tail", checkpointSearchBytes},
			{"no-checkpoint", 1 << 62},
		} {
			if c.name == "tail" {
				growTail(b, l)
			}
			b.Run(fmt.Sprintf("%d/%s", n, c.name), func(b *testing.B) {
				old := checkpointSearchBytes
				checkpointSearchBytes = c.search
				defer func() { checkpointSearchBytes = old }()
				l := openTest(l.Path())
				fi, _ := os.Stat(l.Path())
				b.SetBytes(fi.Size())
				b.ReportAllocs()
				b.ResetTimer()
				cpu0 := cpuTime()
				defer func() { reportCPU(b, cpuTime()-cpu0) }()
				for b.Loop() {
					os.Remove(l.IndexPath())
					l.tailRead = 0
					if err := l.View(func(*Tx) error { return nil }); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(l.tailRead), "folded-bytes")
			})
		}
	}
}

// growTail appends two-event Updates to l (like hooks) until the next one
// would write a checkpoint.
func growTail(b *testing.B, l *Log) {
	b.Helper()
	session := fmt.Sprintf("019a2b6c-7f3e-7c21-9d55-%012d", 3)
	for {
		st, _, err := readIndex(l.IndexPath(), l.folder, l.key, false)
		if err != nil || st == nil {
			b.Fatal("no index", err)
		}
		if st.hdr.Offset+2<<10 >= max(st.hdr.NextCheckpoint, checkpointEveryBytes) {
			return
		}
		err = l.Update(func(tx *Tx) error {
			for range 2 {
				if _, err := tx.Append(Event{SessionID: session, State: "building", EventType: TypeHookFired, Actor: "codex", Payload: map[string]any{"codex_event": "PreToolUse", "tool_name": "Bash"}}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScan reads every event of a 10,000-event log (what `hook-loop log`
// and Verify cost).
func BenchmarkScan(b *testing.B) {
	l := benchLog(b, 10_000)
	fi, _ := os.Stat(l.Path())
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	defer func() { reportCPU(b, cpuTime()-cpu0) }()
	for b.Loop() {
		n := 0
		if err := l.Scan(nil, func(int, Event) error { n++; return nil }); err != nil || n != 10_000 {
			b.Fatal(n, err)
		}
	}
}

// childOneHook is one hook process's log work on EL_LOG (BenchmarkUpdate's
// loop body), for BenchmarkHookProcess.
func childOneHook() int {
	session := fmt.Sprintf("019a2b6c-7f3e-7c21-9d55-%012d", 3)
	start := time.Now()
	err := openTest(os.Getenv("EL_LOG")).Update(func(tx *Tx) error {
		s := sessionOf(tx, session)
		if _, err := tx.Append(Event{SessionID: session, State: s.State, EventType: TypeHookFired, Actor: "codex", Payload: map[string]any{"codex_event": "PreToolUse", "tool_name": "Bash"}}); err != nil {
			return err
		}
		_, err := tx.Append(Event{SessionID: session, State: s.State, EventType: TypeEvidenceRegistered, Actor: "codex", Payload: map[string]any{"command": "go test ./...", "exit_code": 0}})
		return err
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(time.Since(start).Nanoseconds())
	return 0
}

// BenchmarkHookProcess is BenchmarkUpdate in a process of its own per
// operation, as a one-shot hook runs it: first-use costs (encoding/json's
// caches, tables built on first use, the random source) count here, where
// BenchmarkUpdate amortises them. Its figure includes starting this test
// binary; compare it between builds, not with a hook's. update-ns is the
// median of the Update alone, timed inside each process, which the noise of
// starting processes does not reach.
func BenchmarkHookProcess(b *testing.B) {
	path := benchLog(b, 10_000).Path()
	var took []int64
	b.ResetTimer()
	for b.Loop() {
		out, err := child("onehook", "EL_LOG="+path).Output()
		if err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		ns, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
		if err != nil {
			b.Fatalf("child said %q", out)
		}
		took = append(took, ns)
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2]), "update-ns")
}
