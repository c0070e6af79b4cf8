package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/hook-loop/hook-loop/gallery"
	"github.com/hook-loop/hook-loop/testkit/benchgen"
)

// BenchmarkCodexHookInProcess runs `hook-loop codex-hook` in-process on a
// recorded payload, from argument parsing to the encoded answer, on a log of
// 10,000 events. It is the profile target for start-up work that does not
// serve the event (go test -bench CodexHook -cpuprofile cpu.out ./cli);
// what it cannot see is the runtime's own start-up and package init, which
// scripts/bench.sh measures with the real binary.
func BenchmarkCodexHookInProcess(b *testing.B) {
	for _, event := range []string{"SessionStart", "PreToolUse", "PostToolUse", "Stop"} {
		b.Run(event, func(b *testing.B) {
			payload, err := os.ReadFile(filepath.Join("..", "testdata", "bench", "codex", event+".json"))
			if err != nil {
				b.Fatal(err)
			}
			dsl, err := gallery.Get("plan_execute")
			if err != nil {
				b.Fatal(err)
			}
			dir := b.TempDir()
			cfg := filepath.Join(dir, "hook-loop.json")
			if err := os.WriteFile(cfg, dsl, 0o644); err != nil {
				b.Fatal(err)
			}
			logPath := filepath.Join(dir, ".hook-loop", "events.jsonl")
			if _, err := benchgen.Write(logPath, benchgen.Options{Events: 10_000, Sessions: 8, Focus: "01a227e9-088f-7df0-891a-4bca05f577fd"}); err != nil {
				b.Fatal(err)
			}
			args := []string{"hook-loop", "codex-hook", "--event", event, "--config", cfg, "--event-log", logPath}
			var out, errOut bytes.Buffer
			b.ReportAllocs()
			for b.Loop() {
				out.Reset()
				errOut.Reset()
				if code := Main(args, bytes.NewReader(payload), &out, &errOut); code != 0 {
					b.Fatalf("exit %d: %s", code, errOut.String())
				}
			}
		})
	}
}
