package serve_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/hook/serve"
	"github.com/hook-loop/hook-loop/loop/session"
)

// BenchmarkServeToolCall is one opencode tool call (before + after) through the
// co-process's request loop with the real hook path, the gallery's plan_execute
// loop and a growing log: the in-process cost a plugin pays per tool call on
// top of the pipe round trips. "kept" reuses the log's fold between requests
// (what the co-process does); "read-each" reads the index and the log on every
// request, as a one-shot hook does (what it did before). others=N first
// fills the log with N other sessions of 20 events each (a project's
// history, which the index holds one line each of).
func BenchmarkServeToolCall(b *testing.B) {
	for _, others := range []int{0, 200} {
		b.Run(fmt.Sprintf("others=%d/kept", others), func(b *testing.B) { benchToolCall(b, others, false) })
		b.Run(fmt.Sprintf("others=%d/read-each", others), func(b *testing.B) { benchToolCall(b, others, true) })
	}
}

func benchToolCall(b *testing.B, others int, readEach bool) {
	dir := b.TempDir()
	if others > 0 {
		l := session.Open(filepath.Join(dir, ".hook-loop", "events.jsonl"))
		for i := range others {
			if err := l.Update(func(tx session.Tx) error {
				for range 20 {
					if _, err := tx.Append(eventlog.Event{SessionID: fmt.Sprint("other-", i), EventType: eventlog.TypeHookFired, Actor: "bench", State: "building"}); err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				b.Fatal(err)
			}
		}
	}
	dsl, err := os.ReadFile(filepath.Join("..", "..", "gallery", "plan_execute.json"))
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hook-loop.json"), dsl, 0o644); err != nil {
		b.Fatal(err)
	}
	// No lifecycle hooks: a missing explicit declaration would be the hook's
	// failure path on every event.
	hooks := filepath.Join(dir, "no-hooks.json")
	if err := os.WriteFile(hooks, []byte(`{"hooks": []}`), 0o644); err != nil {
		b.Fatal(err)
	}
	var in strings.Builder
	for i := 0; i < b.N; i++ {
		fmt.Fprintf(&in, `{"id":%d,"event":"tool.execute.before","cwd":%q,"input":{"hook":"tool.execute.before","input":{"tool":"bash","sessionID":"s","callID":"c%d"},"output":{"args":{"command":"ls"}}}}`+"\n", 2*i, dir, i)
		fmt.Fprintf(&in, `{"id":%d,"event":"tool.execute.after","cwd":%q,"input":{"hook":"tool.execute.after","input":{"tool":"bash","sessionID":"s","callID":"c%d"},"output":{"title":"ls","output":"a\n","metadata":{"exit":0}}}}`+"\n", 2*i+1, dir, i)
	}
	logs := eventlog.NewCache()
	o := serve.Options{Adapter: opencodeAdapter, HooksConfig: hooks, Cwd: dir, ReadLogEachRequest: readEach}
	if !readEach {
		o.LogCache = logs
	}
	b.ResetTimer()
	cpu := cpuTime()
	if err := serve.Serve(context.Background(), strings.NewReader(in.String()), io.Discard, o); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	// CPU time (user+system): on a busy machine it measures the work a
	// request does, where wall time mostly measures waiting for a CPU.
	if d := cpuTime() - cpu; d > 0 {
		b.ReportMetric(float64(d.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
	if !readEach {
		st := logs.Stats(filepath.Join(dir, ".hook-loop", "events.jsonl"))
		b.ReportMetric(float64(st.Loaded)/float64(b.N), "log-reads/op")
	}
}
