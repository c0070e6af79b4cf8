package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestParseFlagsFull(t *testing.T) {
	o, err := parseFlags([]string{"-bin", "/b/hook-loop-hook", "-full", "/b/hook-loop", "-sizes", "0,10000", "-store", "postgres://x/y"})
	if err != nil {
		t.Fatal(err)
	}
	if o.bin != "/b/hook-loop-hook" || o.full != "/b/hook-loop" || o.store != "postgres://x/y" || len(o.sizes) != 2 {
		t.Fatalf("parsed %+v", o)
	}
	if o, err := parseFlags([]string{"-bin", "/b/hook-loop"}); err != nil || o.full != "" {
		t.Fatalf("-bin alone: %+v, %v", o, err)
	}
	if _, err := parseFlags([]string{"-full", "/b/hook-loop"}); err == nil || !strings.Contains(err.Error(), "-bin is required") {
		t.Fatalf("no -bin: %v", err)
	}
	// The cells tell the binaries apart by file name.
	if _, err := parseFlags([]string{"-bin", "/a/hook-loop", "-full", "/b/hook-loop"}); err == nil || !strings.Contains(err.Error(), "both named") {
		t.Fatalf("same names: %v", err)
	}
	// PgBouncer's rows need the server's own URL to migrate the logs over.
	if _, err := parseFlags([]string{"-bin", "/b/hook-loop", "-pgbouncer", "postgres://b/y"}); err == nil || !strings.Contains(err.Error(), "-pgbouncer needs -store") {
		t.Fatalf("-pgbouncer alone: %v", err)
	}
}

func TestRoundOrder(t *testing.T) {
	for i, want := range [][]int{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 1, 2}} {
		if got := roundOrder(i, 3); !slices.Equal(got, want) {
			t.Fatalf("round %d: %v, want %v", i, got, want)
		}
	}
	if got := roundOrder(5, 1); !slices.Equal(got, []int{0}) {
		t.Fatalf("one variant: %v", got)
	}
}

// The spawner runs every variant once per round, warm-up included, with the
// variant's binary, arguments and environment, and marks each sample with its
// variant.
func TestSpawnAlternatesVariants(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("shell scripts")
	}
	dir := t.TempDir()
	trace := filepath.Join(dir, "trace")
	script := func(name string) string {
		p := filepath.Join(dir, name)
		body := "#!/bin/sh\necho \"" + name + " $* store=$HOOK_LOOP_STORE common=$COMMON\" >> " + trace + "\n"
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	lean, full := script("hook-loop-hook"), script("hook-loop")
	// The user's store never leaks into a run: only a variant's own env sets it.
	t.Setenv("HOOK_LOOP_STORE", "postgres://users-own/db")
	j := job{
		Variants: []variant{
			{Bin: lean, Args: []string{"lean-log"}},
			{Bin: full, Args: []string{"full-log"}},
			{Bin: full, Args: []string{"full-log"}, Env: []string{"HOOK_LOOP_STORE=pg"}},
		},
		Args: []string{"unused"}, Dir: dir, Env: []string{"COMMON=1"},
		Warmup: 1, Runs: 2,
	}
	in, _ := json.Marshal(j)
	var out bytes.Buffer
	if err := spawn(bytes.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	var samples []sample
	if err := json.Unmarshal(out.Bytes(), &samples); err != nil {
		t.Fatal(err)
	}
	var variants []int
	for _, s := range samples {
		variants = append(variants, s.Variant)
	}
	// Rounds 1 and 2 are timed (round 0 is the warm-up), each starting one on.
	if want := []int{1, 2, 0, 2, 0, 1}; !slices.Equal(variants, want) {
		t.Fatalf("sample variants %v, want %v", variants, want)
	}
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	a := "hook-loop-hook lean-log store= common=1"
	b := "hook-loop full-log store= common=1"
	c := "hook-loop full-log store=pg common=1"
	want := []string{a, b, c, b, c, a, c, a, b}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("runs:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

func TestAddSamples(t *testing.T) {
	cs := []*cell{{Event: "E", Binary: "hook-loop-hook"}, {Event: "E", Binary: "hook-loop"}}
	err := addSamples(cs, []sample{
		{Wall: 1, Kind: "allow"}, {Wall: 2, Variant: 1, Kind: "block"}, {Wall: 3, Kind: "allow"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs[0].Wall) != 2 || len(cs[1].Wall) != 1 || cs[1].Wall[0] != 2 || cs[1].Outputs[0] != "block" {
		t.Fatalf("cells %+v %+v", *cs[0], *cs[1])
	}
	if err := addSamples(cs, []sample{{Variant: 2}}); err == nil {
		t.Fatal("a sample of an unknown variant was taken")
	}
}

func flat(ms float64, n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = ms
	}
	return xs
}

func TestReportColumnsAndVerdicts(t *testing.T) {
	o := options{bin: "/t/hook-loop-hook", full: "/t/hook-loop", store: "postgres://x/y", pgbouncer: "postgres://b/y",
		sizes: []int{10000}, events: []string{"Stop"}, runs: 3, warmup: 1, sessions: 8}
	rss := []int64{5 << 20}
	cells := []*cell{
		{Event: trueEvent, Size: -1, Wall: flat(1, 3), RSS: rss},
		{Event: helloEvent, Size: -1, Wall: flat(2, 3), RSS: rss},
		{Event: versionEvent, Size: -1, Binary: "hook-loop-hook", Wall: flat(2.5, 3), RSS: rss},
		{Event: versionEvent, Size: -1, Binary: "hook-loop", Wall: flat(4, 3), RSS: rss},
		{Event: "Stop", Size: 10000, Binary: "hook-loop-hook", Wall: flat(3.2, 3), RSS: rss, Outputs: []string{"block"}},
		{Event: "Stop", Size: 10000, Binary: "hook-loop", Wall: flat(5, 3), RSS: []int64{13 << 20}, Outputs: []string{"block"}},
		{Event: "Stop", Size: 10000, Store: "postgres", Binary: "hook-loop", Wall: flat(11, 3), RSS: []int64{15 << 20}, Outputs: []string{"block"}},
		{Event: "Stop", Size: 10000, Store: "postgres via PgBouncer", Binary: "hook-loop", Wall: flat(7, 3), RSS: []int64{15 << 20}, Outputs: []string{"block"}},
	}
	var w bytes.Buffer
	report(&w, o, cells)
	got := w.String()
	for _, want := range []string{
		"codex-hook of `hook-loop-hook` (what installs write) and `hook-loop`, run by run alternately; on postgres `hook-loop` (what installs write for a database), one process per event;",
		"| event | binary | log events | answer | median wall (ms) | ÷ Go hello-world | ÷ /bin/true |",
		"| (any process: /bin/true) | – | – | – | 1.00 | 0.50× | 1.00× |",
		"| (start-up only: --version) | hook-loop-hook | – | – | 2.50 | 1.25× | 2.50× |",
		"| (start-up only: --version) | hook-loop | – | – | 4.00 | 2.00× | 4.00× |",
		"| Stop | hook-loop-hook | 10,000 | block | 3.20 | 1.60× | 3.20× |",
		"| Stop | hook-loop | 10,000 | block | 5.00 | 2.50× | 5.00× |",
		"| Stop (postgres) | hook-loop | 10,000 | block | 11.00 | 5.50× | 11.00× |",
		"| Stop (postgres via PgBouncer) | hook-loop | 10,000 | block | 7.00 | 3.50× | 7.00× |",
		// Issue 30 judged on the lean rows, the full rows labelled.
		"Budgets (issue 30) on hook-loop-hook, what installs write:",
		"- Stop (hook-loop-hook): median 3.20 ms at 10,000 events = 1.60× the hello-world (budget ≤ 1.7×: met; stretch 1.5×: MISSED)",
		"- peak RSS over every hook-loop-hook hook run: 5.0 MiB (budget ≤ 12 MiB: met)",
		"The same on hook-loop, for reference",
		"- Stop (hook-loop): median 5.00 ms at 10,000 events = 2.50× the hello-world (budget ≤ 1.7×: MISSED",
		"- peak RSS over every hook-loop hook run: 13.0 MiB (budget ≤ 12 MiB: MISSED)",
		// The database against what installs write for the JSONL log, and
		// against the same binary's JSONL rows.
		"PostgreSQL (issue 30):",
		"- Stop on postgres (hook-loop) − JSONL (hook-loop-hook), median: +7.80 ms at 10,000 events (11.00 vs 3.20), +6.00 ms over hook-loop's own JSONL rows (budget ≤ +5 ms at 10,000 and 1,000,000: MISSED)",
		"- Stop on postgres via PgBouncer (hook-loop) − JSONL (hook-loop-hook), median: +3.80 ms at 10,000 events (7.00 vs 3.20), +2.00 ms over hook-loop's own JSONL rows (budget ≤ +5 ms at 10,000 and 1,000,000: met)",
		"- peak RSS of the database hooks (hook-loop): 15.0 MiB (issue 17's budget ≤ 20 MiB: met)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "\n\n\n") {
		t.Errorf("report has a double blank line:\n%s", got)
	}

	// Over 5 ms on the database misses the budget.
	cells[len(cells)-1].Wall = flat(8.5, 3)
	w.Reset()
	report(&w, o, cells)
	if got := w.String(); !strings.Contains(got, "+5.30 ms at 10,000 events (8.50 vs 3.20), +3.50 ms over hook-loop's own JSONL rows (budget ≤ +5 ms at 10,000 and 1,000,000: MISSED)") {
		t.Errorf("+5.3 ms on postgres judged met:\n%s", got)
	}
}

// With -bin alone (a build without the lean binary) the report is one
// binary's, judged as before.
func TestReportOneBinary(t *testing.T) {
	o := options{bin: "/t/hook-loop", sizes: []int{10000}, events: []string{"Stop"}, runs: 3, warmup: 1, sessions: 8}
	cells := []*cell{
		{Event: helloEvent, Size: -1, Wall: flat(2, 3)},
		{Event: versionEvent, Size: -1, Binary: "hook-loop", Wall: flat(4, 3)},
		{Event: "Stop", Size: 10000, Binary: "hook-loop", Wall: flat(5, 3), RSS: []int64{12 << 20}},
	}
	var w bytes.Buffer
	report(&w, o, cells)
	got := w.String()
	if !strings.Contains(got, "- Stop (hook-loop): median 5.00 ms at 10,000 events = 2.50× the hello-world (budget ≤ 1.7×: MISSED") {
		t.Errorf("no verdict on the one binary:\n%s", got)
	}
	if strings.Contains(got, "for reference") || strings.Contains(got, "Budgets (issue 30)") {
		t.Errorf("headings for a second binary:\n%s", got)
	}

	// 1,000,000 against 10,000 events, timed in the same rounds.
	o.sizes = []int{10000, 1000000}
	cells = append(cells, &cell{Event: "Stop", Size: 1000000, Binary: "hook-loop", Wall: flat(5.2, 3), Hello: flat(4, 3)})
	cells[2].Hello = flat(4, 3)
	w.Reset()
	report(&w, o, cells)
	if got := w.String(); !strings.Contains(got, "; 1,000,000 events 1.04× that, in the same rounds (budget ≤ 1.05×: met)") {
		t.Errorf("1,000,000 ÷ 10,000 not judged:\n%s", got)
	}
	cells[3].Wall = flat(5.5, 3)
	w.Reset()
	report(&w, o, cells)
	if got := w.String(); !strings.Contains(got, "; 1,000,000 events 1.10× that, in the same rounds (budget ≤ 1.05×: MISSED)") {
		t.Errorf("1,000,000 ÷ 10,000 at 1.10× judged met:\n%s", got)
	}
	cells = cells[:3]
	o.sizes = []int{10000}

	// A cell with hello-world runs of its own rounds is judged against them,
	// not the floor row measured at another time.
	cells[2].Hello = flat(4, 3)
	w.Reset()
	report(&w, o, cells)
	got = w.String()
	for _, want := range []string{
		"| Stop | hook-loop | 10,000 |  | 5.00 | 1.25× |",
		"- Stop (hook-loop): median 5.00 ms at 10,000 events = 1.25× the hello-world, 4.00 ms in the same rounds (budget ≤ 1.7×: met; stretch 1.5×: met)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("report lacks %q:\n%s", want, got)
		}
	}
}
