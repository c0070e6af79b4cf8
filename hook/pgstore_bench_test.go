//go:build unix

package hook_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/loop/session"
	"github.com/hook-loop/hook-loop/testkit/benchgen"
	"github.com/hook-loop/hook-loop/testkit/pgtest"
)

// BenchmarkHookProcessStores runs the real `hook-loop codex-hook` process on a
// PreToolUse, side by side on the JSONL log and on PostgreSQL (loopback TCP and
// the unix socket), on a log of 10k events (and 1M with HOOK_BENCH_1M=1). It
// reports the median wall time per hook (median-ms) and the hook process's
// peak RSS (maxrss-KiB); the budget is +5 ms median over JSONL and 12 MiB.
// Each hook connects afresh, as in use. maxrss is inflated by the
// test binary's own peak (a child's ru_maxrss starts at its parent's): the
// bench script (scripts/bench.sh, PG=1) reports the hook's own.
func BenchmarkHookProcessStores(b *testing.B) {
	sizes := []int{10_000}
	if os.Getenv("HOOK_BENCH_1M") != "" {
		sizes = append(sizes, 1_000_000)
	}
	b.Setenv(eventlog.StateDirEnv, b.TempDir())
	srv := pgtest.Start(b, pgtest.Options{Fsync: true})
	bin := hookLoopBin(b)
	const sid = "019a2b6c-7f3e-7c21-9d55-000000000003"
	for _, n := range sizes {
		dir := b.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "hook-loop.json"), []byte(projectLoop), 0o644); err != nil {
			b.Fatal(err)
		}
		logPath := filepath.Join(dir, ".hook-loop", "events.jsonl")
		if _, err := benchgen.Write(logPath, benchgen.Options{Events: n, Sessions: 8, Focus: sid}); err != nil {
			b.Fatal(err)
		}
		// Fold once, so every run starts from a current index, as in use.
		_ = session.Open(logPath).Update(func(session.Tx) error { return nil })
		project := fmt.Sprintf("bench/%d", n)
		mig := exec.Command(bin, "store", "migrate", "--to", srv.URL())
		mig.Dir, mig.Env = dir, append(os.Environ(), "HOOK_LOOP_PROJECT="+project)
		if out, err := mig.CombinedOutput(); err != nil {
			b.Fatalf("store migrate: %v\n%s", err, out)
		}
		in, _ := json.Marshal(bashCall(sid, dir))
		for _, c := range []struct{ name, store string }{{"jsonl", ""}, {"pg-tcp", srv.URL()}, {"pg-unix", srv.SocketURL()}} {
			b.Run(fmt.Sprintf("%s/%d", c.name, n), func(b *testing.B) {
				env := append(os.Environ(), "HOOK_LOOP_PROJECT="+project, "XDG_CONFIG_HOME="+dir)
				if c.store != "" {
					env = append(env, "HOOK_LOOP_STORE="+c.store)
				}
				// One untimed hook first: it keys the JSONL log (rebuilding its
				// index, with a warning), as the first hook of a project does once.
				warm := exec.Command(bin, "codex-hook")
				warm.Dir, warm.Env, warm.Stdin = dir, env, bytes.NewReader(in)
				if out, err := warm.CombinedOutput(); err != nil {
					b.Fatalf("first hook: %v %s", err, out)
				}
				var took []time.Duration
				var rss int64
				var warned string
				for b.Loop() {
					cmd := exec.Command(bin, "codex-hook")
					cmd.Dir, cmd.Env, cmd.Stdin = dir, env, bytes.NewReader(in)
					var errOut bytes.Buffer
					cmd.Stderr = &errOut
					start := time.Now()
					if err := cmd.Run(); err != nil || (errOut.Len() > 0 && !strings.HasPrefix(errOut.String(), "hook-loop: warning:")) {
						b.Fatalf("hook: %v %s", err, errOut.String())
					}
					if errOut.Len() > 0 && warned != errOut.String() {
						warned = errOut.String()
						b.Logf("hook warned: %s", warned)
					}
					took = append(took, time.Since(start))
					if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
						rss = max(rss, int64(ru.Maxrss))
					}
				}
				sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
				b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "median-ms")
				b.ReportMetric(float64(rss), "maxrss-KiB")
			})
		}
	}
}
