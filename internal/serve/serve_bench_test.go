package serve_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/internal/serve"
)

// BenchmarkServeToolCall is one opencode tool call (before + after) through the
// co-process's request loop with the real hook path, the gallery's plan_execute
// loop and a growing log: the in-process cost a plugin pays per tool call on
// top of the pipe round trips. "kept" reuses the log's fold between requests
// (what the co-process does); "read-each" reads the index and the log on every
// request, as a one-shot hook does (what it did before).
func BenchmarkServeToolCall(b *testing.B) {
	b.Run("kept", func(b *testing.B) { benchToolCall(b, false) })
	b.Run("read-each", func(b *testing.B) { benchToolCall(b, true) })
}

func benchToolCall(b *testing.B, readEach bool) {
	dir := b.TempDir()
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
	o := serve.Options{Adapter: opencodeAdapter, HooksConfig: hooks, Cwd: dir, ReadLogEachRequest: readEach}
	b.ResetTimer()
	if err := serve.Serve(context.Background(), strings.NewReader(in.String()), io.Discard, o); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	st := serve.LogStats(filepath.Join(dir, ".hook-loop", "events.jsonl"))
	b.ReportMetric(float64(st.Loaded)/float64(b.N), "log-reads/op")
}
