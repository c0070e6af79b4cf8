package board_test

import (
	"fmt"
	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/operator"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	loopdsl "github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/session"

	"github.com/hook-loop/hook-loop/board"
	"github.com/hook-loop/hook-loop/gallery"
	"github.com/hook-loop/hook-loop/overview"
	"github.com/hook-loop/hook-loop/testkit/benchgen"
)

// BenchmarkBoardLoad is what a person waits for when opening the board on a
// project: the overview built from the log (index summaries, timelines from the
// log's end, each session's harness) and the whole page rendered, for 100
// sessions. Set BOARD_BENCH_1M=1 to add a 1,000,000-event log (~300 MB, written
// once per run).
func BenchmarkBoardLoad(b *testing.B) {
	sizes := []int{10_000, 100_000}
	if os.Getenv("BOARD_BENCH_1M") != "" {
		sizes = append(sizes, 1_000_000)
	}
	src, err := gallery.Get("plan_execute")
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	cfg := filepath.Join(dir, "hook-loop.json")
	if err := os.WriteFile(cfg, src, 0o644); err != nil {
		b.Fatal(err)
	}
	spec, _, err := loopdsl.Load(cfg)
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			path := filepath.Join(dir, fmt.Sprintf("events-%d.jsonl", n))
			size, err := benchgen.Write(path, benchgen.Options{Events: n, Sessions: 100})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				l := session.Open(path)
				w, err := overview.Open(overview.Options{Log: l, Spec: spec, Root: dir})
				if err != nil {
					b.Fatal(err)
				}
				srv, err := board.New(w, operator.Controls{Log: operator.FileLog(l), Engine: &engine.Engine{Spec: spec, Root: dir}}, dir)
				if err != nil {
					b.Fatal(err)
				}
				rec := httptest.NewRecorder()
				srv.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "http://127.0.0.1/?token="+srv.Token, nil))
				if rec.Code != 200 {
					b.Fatalf("GET /: %d", rec.Code)
				}
				if got := len(w.Sessions()); got != 100 {
					b.Fatalf("%d sessions, want 100", got)
				}
				io.Discard.Write(rec.Body.Bytes())
			}
			b.ReportMetric(float64(size)/(1<<20), "log-MiB")
		})
	}
}
