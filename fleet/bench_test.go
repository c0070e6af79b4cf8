package fleet_test

import (
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/hook-loop/hook-loop/board"
	"github.com/hook-loop/hook-loop/fleet"
	"github.com/hook-loop/hook-loop/gallery"
	"github.com/hook-loop/hook-loop/loop/session"
	"github.com/hook-loop/hook-loop/project/roster"
	"github.com/hook-loop/hook-loop/testkit/benchgen"
)

// BenchmarkBoardAllLoad is what a person waits for when opening `board
// --all`: the registry read, every project's overview built from its log's
// index and end, and the whole page rendered. 50 projects of 20,000 events
// each (1,000,000 in all, ~300 MB), two sessions a project; the logs' indexes
// exist, as the hooks keep them. FLEET_BENCH_PROJECTS and
// FLEET_BENCH_EVENTS change the figures.
func BenchmarkBoardAllLoad(b *testing.B) {
	projects, perProject := envInt("FLEET_BENCH_PROJECTS", 50), envInt("FLEET_BENCH_EVENTS", 20_000)
	src, err := gallery.Get("plan_execute")
	if err != nil {
		b.Fatal(err)
	}
	state := b.TempDir()
	var size int64
	for i := range projects {
		root := filepath.Join(b.TempDir(), fmt.Sprintf("project-%02d", i))
		log := filepath.Join(root, ".hook-loop", "events.jsonl")
		if err := os.MkdirAll(filepath.Dir(log), 0o755); err != nil {
			b.Fatal(err)
		}
		cfg := filepath.Join(root, "hook-loop.json")
		if err := os.WriteFile(cfg, src, 0o644); err != nil {
			b.Fatal(err)
		}
		n, err := benchgen.Write(log, benchgen.Options{Events: perProject, Sessions: 2})
		if err != nil {
			b.Fatal(err)
		}
		size += n
		// The hooks keep the index; build it as they would have.
		if err := session.Open(log).View(func(session.Tx) error { return nil }); err != nil {
			b.Fatal(err)
		}
		if err := roster.Register(state, roster.Entry{Root: root, Config: cfg, Log: log}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		f, err := fleet.Open(fleet.Options{StateDir: state, Getenv: func(string) string { return "" }})
		if err != nil {
			b.Fatal(err)
		}
		srv, err := board.NewAll(f)
		if err != nil {
			b.Fatal(err)
		}
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "http://127.0.0.1/?token="+srv.Token, nil))
		if rec.Code != 200 {
			b.Fatalf("GET /: %d", rec.Code)
		}
		if got := len(f.Projects()); got != projects {
			b.Fatalf("%d projects, want %d (%v)", got, projects, f.Warnings())
		}
		io.Discard.Write(rec.Body.Bytes())
		f.Close()
	}
	b.ReportMetric(float64(size)/(1<<20), "logs-MiB")
	b.ReportMetric(float64(projects*perProject), "events")
}

func envInt(name string, def int) int {
	var n int
	if _, err := fmt.Sscan(os.Getenv(name), &n); err != nil || n <= 0 {
		return def
	}
	return n
}
