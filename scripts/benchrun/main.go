// Command benchrun times the real hook binaries as a Codex hook, per event type
// and event-log size, and prints a Markdown table of median and p95 wall time, CPU
// time and peak memory; `benchrun plugin` times the opencode plugin and the pi
// extension (plugin.go). scripts/bench.sh builds the binaries and runs both.
//
// -bin is the binary installs write into the hooks (the lean one-shot
// hook-loop-hook when it sits beside hook-loop), -full the full hook-loop:
// every JSONL cell times both, run by run alternately, each run one process
// per event. The database cells (-store) time -bin, which hands a hook with
// a store to the hook-loop beside it, as in use.
//
// Each cell gets its own copy of a generated log (several sessions interleaved,
// the payload's session among them) whose index is built before timing, so every
// timed run meets what a hook meets in a long-lived project: an index covering
// the log, and only the events since the previous hook to replay.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hook-loop/hook-loop/testkit/benchgen"
	"github.com/tidwall/sjson"
)

type options struct {
	bin      string // what installs write: hook-loop-hook, or hook-loop
	full     string // hook-loop, when bin is the lean binary ("": bin only)
	hello    string
	payloads string
	config   string
	work     string
	sizes    []int
	events   []string
	runs     int
	warmup   int
	sessions int
	jsonOut  string
	store    string // a postgres:// URL: every hook cell is timed on it too
	// pgbouncer is the same database through PgBouncer (transaction
	// pooling): every hook cell is timed through it as well.
	pgbouncer string
}

// cell is one (event, size) measurement.
type cell struct {
	Event string `json:"event"`
	Store string `json:"store,omitempty"` // "postgres" for the -store rows
	// Binary is the timed binary's file name ("" for the hello-world and
	// /bin/true floors): cells of hook-loop-hook and hook-loop differ only here.
	Binary  string    `json:"binary,omitempty"`
	Size    int       `json:"log_events"`
	Wall    []float64 `json:"wall_ms"`
	CPU     []float64 `json:"cpu_ms"`
	RSS     []int64   `json:"max_rss_bytes"`
	Stderr  []string  `json:"stderr,omitempty"`
	Outputs []string  `json:"stdout_kinds,omitempty"`
	// Hello is the wall time of the hello-world run in the same rounds as
	// this cell's, interleaved with them: the unit of its ratio, side by
	// side, whatever the machine's load did between cells.
	Hello []float64 `json:"hello_wall_ms,omitempty"`
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "plugin" {
		o, err := parsePluginFlags(os.Args[2:])
		if err == nil {
			err = runPlugin(o, os.Stdout, os.Stderr)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchrun plugin:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "compare" {
		o, err := parseCompareFlags(os.Args[2:])
		if err == nil {
			err = runCompare(o, os.Stdout)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchrun compare:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) == 2 && os.Args[1] == "-spawn" {
		if err := spawn(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "benchrun -spawn:", err)
			os.Exit(1)
		}
		return
	}
	o, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchrun:", err)
		os.Exit(2)
	}
	if err := run(o, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "benchrun:", err)
		os.Exit(1)
	}
}

func parseFlags(args []string) (options, error) {
	var o options
	var sizes, events string
	fs := flag.NewFlagSet("benchrun", flag.ContinueOnError)
	fs.StringVar(&o.bin, "bin", "", "the hook binary installs write, hook-loop-hook (or hook-loop) (required)")
	fs.StringVar(&o.full, "full", "", "the full hook-loop binary, of the same build: every JSONL cell is timed with it too, alternately with -bin, and `store migrate` runs it")
	fs.StringVar(&o.hello, "hello", "", "Go hello-world that reads stdin, built with hook-loop's flags: the floor every figure is divided by")
	fs.StringVar(&o.payloads, "payloads", "testdata/bench/codex", "directory of Codex payloads <Event>.json and rollout.jsonl")
	fs.StringVar(&o.config, "config", "gallery/plan_execute.json", "loop DSL the hook runs")
	fs.StringVar(&o.work, "work", "", "scratch directory (default: a new temporary one, removed afterwards)")
	fs.StringVar(&sizes, "sizes", "0,10000,100000,1000000", "event-log sizes, comma-separated")
	fs.StringVar(&events, "events", "SessionStart,UserPromptSubmit,PreToolUse,PostToolUse,Stop", "Codex events, comma-separated")
	fs.IntVar(&o.runs, "runs", 50, "timed runs per cell")
	fs.IntVar(&o.warmup, "warmup", 3, "untimed runs per cell first (page cache, index)")
	fs.IntVar(&o.sessions, "sessions", 8, "sessions interleaved in each log")
	fs.StringVar(&o.jsonOut, "json", "", "also write every sample to this JSON file")
	fs.StringVar(&o.store, "store", "", "also time every hook with its log in this PostgreSQL database (postgres:// URL), side by side with the JSONL file")
	fs.StringVar(&o.pgbouncer, "pgbouncer", "", "also time every hook on -store's database through this PgBouncer URL (transaction pooling); the logs are migrated over -store")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.bin == "" {
		return o, fmt.Errorf("-bin is required")
	}
	if o.full != "" && binaryName(o.full) == binaryName(o.bin) {
		// The cells of the two are told apart by file name (compare pools by it).
		return o, fmt.Errorf("-bin and -full are both named %q: give two different binaries", binaryName(o.bin))
	}
	for _, s := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 0 {
			return o, fmt.Errorf("-sizes: %q is not a count", s)
		}
		o.sizes = append(o.sizes, n)
	}
	for _, e := range strings.Split(events, ",") {
		o.events = append(o.events, strings.TrimSpace(e))
	}
	if o.runs < 1 {
		return o, fmt.Errorf("-runs must be at least 1")
	}
	if o.pgbouncer != "" && o.store == "" {
		return o, fmt.Errorf("-pgbouncer needs -store, the server's own URL, to migrate the logs")
	}
	return o, nil
}

// storeRow is one database the hook cells are also timed on.
type storeRow struct{ label, url string }

// storeList is the databases of -store and -pgbouncer, in the order of their rows.
func (o options) storeList() []storeRow {
	var out []storeRow
	if o.store != "" {
		out = append(out, storeRow{"postgres", o.store})
	}
	if o.pgbouncer != "" {
		out = append(out, storeRow{"postgres via PgBouncer", o.pgbouncer})
	}
	return out
}

func run(o options, stdout, stderr io.Writer) error {
	bin, err := filepath.Abs(o.bin)
	if err != nil {
		return err
	}
	// full is the binary of the database cells and of `store migrate`.
	full := bin
	if o.full != "" {
		if full, err = filepath.Abs(o.full); err != nil {
			return err
		}
	}
	work, cleanup, err := scratch(o.work, "hook-loop-bench-")
	if err != nil {
		return err
	}
	defer cleanup()
	o.work = work
	// The hooks run without the user's config: with one, hook-loop-hook hands
	// every hook to hook-loop (and installs would not write it), so the lean
	// rows would time something no install runs.
	env := []string{"XDG_CONFIG_HOME=" + filepath.Join(o.work, "config")}
	if err := os.MkdirAll(filepath.Join(o.work, "config"), 0o755); err != nil {
		return err
	}
	project := filepath.Join(o.work, "project")
	config, err := newProject(project, o.config)
	if err != nil {
		return err
	}
	rollout, err := writeRollout(o.payloads, o.work)
	if err != nil {
		return err
	}
	payloads := map[string][]byte{}
	var focus string
	for _, ev := range o.events {
		p, sid, err := payload(o.payloads, ev, project, rollout)
		if err != nil {
			return err
		}
		payloads[ev] = p
		if focus == "" {
			focus = sid
		}
	}

	// The floor: the same binaries doing nothing but start and exit, so a
	// reader can tell hook-loop's work from the machine's process start-up cost.
	bins := []string{bin}
	if o.full != "" {
		bins = append(bins, full)
	}
	var floors []*cell
	var floorJob job
	for _, b := range bins {
		floors = append(floors, &cell{Event: versionEvent, Size: -1, Binary: binaryName(b)})
		floorJob.Variants = append(floorJob.Variants, variant{Bin: b})
	}
	floorJob.Args, floorJob.Dir, floorJob.Env, floorJob.Warmup, floorJob.Runs = []string{"--version"}, project, env, o.warmup, o.runs
	if err := measure(floors, floorJob); err != nil {
		return fmt.Errorf("--version: %w", err)
	}
	cells := floors
	if o.hello != "" {
		// The budget's unit: a Go program that reads stdin and exits, built alike.
		hello, err := filepath.Abs(o.hello)
		if err != nil {
			return err
		}
		c := &cell{Event: helloEvent, Size: -1}
		if err := measure([]*cell{c}, job{Variants: []variant{{Bin: hello}}, Dir: project, Stdin: payloads[o.events[0]], Warmup: o.warmup, Runs: o.runs}); err != nil {
			return fmt.Errorf("hello-world: %w", err)
		}
		cells = append([]*cell{c}, cells...)
	}
	if _, err := os.Stat("/bin/true"); err == nil {
		// The machine's floor for any process at all.
		trueFloor := &cell{Event: trueEvent, Size: -1}
		if err := measure([]*cell{trueFloor}, job{Variants: []variant{{Bin: "/bin/true"}}, Dir: project, Warmup: o.warmup, Runs: o.runs}); err != nil {
			return fmt.Errorf("/bin/true: %w", err)
		}
		cells = append([]*cell{trueFloor}, cells...)
	}
	// Every size's log is generated (and copied into the database) first, so
	// that each event's cells of every size, binary and store run in the same
	// rounds: this machine's speed moves by more than the 1,000,000 ÷ 10,000
	// budget from one minute to the next, and cells timed minutes apart
	// measured the machine as much as the log.
	bases := map[int]string{}
	defer func() {
		for _, base := range bases {
			os.Remove(base)
			os.Remove(base + ".idx")
			os.Remove(base + ".lock")
		}
	}()
	stores := map[int]map[string][]string{} // size → store label → the hooks' environment
	for _, size := range o.sizes {
		base := filepath.Join(o.work, fmt.Sprintf("base-%d.jsonl", size))
		start := time.Now()
		n, err := benchgen.Write(base, benchgen.Options{Events: size, Sessions: o.sessions, Focus: focus})
		if err != nil {
			return fmt.Errorf("generate %d events: %w", size, err)
		}
		bases[size] = base
		fmt.Fprintf(stderr, "generated %d events (%.1f MiB, %d sessions) in %v\n", size, float64(n)/(1<<20), o.sessions, time.Since(start).Round(time.Millisecond))
		// Written back before timing, as each cell's copy is (copyLog): left
		// dirty, the 500 MB of the 1,000,000-event log flushed during the
		// cells that followed its generation and slowed them.
		if err := syncFile(base); err != nil {
			return err
		}
		stores[size] = map[string][]string{}
		for _, st := range o.storeList() {
			// One project per size and store, migrated once: copying a large
			// log into the database takes minutes, so the event cells share
			// it (each JSONL cell starts from a fresh copy; both grow by their
			// own runs). Migrated over the server's own URL: a long copy is no
			// work for a transaction pool.
			proj := fmt.Sprintf("HOOK_LOOP_PROJECT=bench/%d/%s/%d", size, st.label, time.Now().UnixNano())
			start := time.Now()
			mig := exec.Command(full, "store", "migrate", "--from", base, "--to", o.store)
			mig.Dir, mig.Env = project, append(hookEnviron(), append(env, proj)...)
			if out, err := mig.CombinedOutput(); err != nil {
				return fmt.Errorf("store migrate %d events: %v: %s", size, err, strings.TrimSpace(string(out)))
			}
			fmt.Fprintf(stderr, "migrated %d events into %s for the %s cells in %v\n", size, o.store, st.label, time.Since(start).Round(time.Millisecond))
			stores[size][st.label] = []string{"HOOK_LOOP_STORE=" + st.url, proj}
		}
	}
	// Every cell's copy of its log is made before any timing: copying (and
	// writing back) half a gigabyte right before a cell slowed the cell that
	// followed it by 10-15 %, long after the copy's own sync had returned.
	logPath := func(ev string, size int, b string) string {
		return filepath.Join(project, ".hook-loop", fmt.Sprintf("events.%s.%s.%d.jsonl", binaryName(b), ev, size))
	}
	for _, ev := range o.events {
		for _, size := range o.sizes {
			for _, b := range bins {
				if err := copyLog(bases[size], logPath(ev, size, b)); err != nil {
					return err
				}
			}
		}
	}
	for _, ev := range o.events {
		j := job{Dir: project, Env: env, Stdin: payloads[ev], Warmup: o.warmup, Runs: o.runs}
		// Run by run, alternately with each size, binary and store, so a
		// change in the machine's load weighs on every variant alike.
		var cs []*cell
		for _, size := range o.sizes {
			// Each binary has its own copy of the log, as a user has one
			// binary per log: sharing one, the two would split the answers
			// between them (Stop's refusals in a row, then its capped allow).
			for _, b := range bins {
				cs = append(cs, &cell{Event: ev, Size: size, Binary: binaryName(b)})
				j.Variants = append(j.Variants, variant{Bin: b, Args: hookArgs(ev, config, logPath(ev, size, b))})
			}
			for _, st := range o.storeList() {
				// What installs write for a log in a database: hook-loop
				// itself (scaffold.HookBinary), one process per event, each
				// with its own connection. The store takes the log's place.
				cs = append(cs, &cell{Event: ev, Store: st.label, Size: size, Binary: binaryName(full)})
				j.Variants = append(j.Variants, variant{Bin: full, Args: hookArgs(ev, config, filepath.Join(project, ".hook-loop", "unused.jsonl")), Env: stores[size][st.label]})
			}
		}
		// The hello-world runs in the same rounds: each cell's ratio is
		// against the floor of its own minutes.
		measured := cs
		var side *cell
		if o.hello != "" {
			hello, err := filepath.Abs(o.hello)
			if err != nil {
				return err
			}
			side = &cell{Event: helloEvent, Size: -1}
			measured = append(slices.Clone(cs), side)
			j.Variants = append(j.Variants, variant{Bin: hello})
		}
		if err := measure(measured, j); err != nil {
			return fmt.Errorf("%s: %w", ev, err)
		}
		for _, c := range cs {
			if side != nil {
				c.Hello = side.Wall
			}
			fmt.Fprintf(stderr, "%-16s %8d events: median %.2f ms (%s)\n", ev, c.Size, median(c.Wall), c.label())
		}
		cells = append(cells, cs...)
		// The copies of this event's cells are not needed again.
		for _, size := range o.sizes {
			for _, b := range bins {
				l := logPath(ev, size, b)
				for _, p := range []string{l, l + ".idx", l + ".lock"} {
					os.Remove(p)
				}
			}
		}
	}
	if o.jsonOut != "" {
		b, _ := json.MarshalIndent(cells, "", "  ")
		if err := os.WriteFile(o.jsonOut, b, 0o644); err != nil {
			return err
		}
	}
	report(stdout, o, cells)
	return nil
}

// scratch is dir, or a new temporary directory removed by cleanup.
func scratch(dir, prefix string) (string, func(), error) {
	if dir != "" {
		return dir, func() {}, nil
	}
	tmp, err := os.MkdirTemp("", prefix)
	if err != nil {
		return "", nil, err
	}
	return tmp, func() { os.RemoveAll(tmp) }, nil
}

// newProject makes dir a project whose loop is a copy of the file dsl, and
// returns the copy's path.
func newProject(dir, dsl string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	data, err := os.ReadFile(dsl)
	if err != nil {
		return "", err
	}
	config := filepath.Join(dir, "hook-loop.json")
	return config, os.WriteFile(config, data, 0o644)
}

// writeRollout puts the recorded Codex rollout behind 1 MiB of earlier session
// lines, so PostToolUse's exit-code lookup reads a full tail window as it would
// in a long session.
func writeRollout(dir, work string) (string, error) {
	real, err := os.ReadFile(filepath.Join(dir, "rollout.jsonl"))
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	filler := `{"timestamp":"2026-11-29T16:00:00.000Z","type":"event_msg","payload":{"type":"agent_message","message":"` + strings.Repeat("earlier work ", 20) + `"}}` + "\n"
	for b.Len() < 1<<20 {
		b.WriteString(filler)
	}
	b.Write(real)
	path := filepath.Join(work, "rollout.jsonl")
	return path, os.WriteFile(path, b.Bytes(), 0o644)
}

// payload reads the recorded payload of ev and points it at the bench project
// and rollout; it returns the payload and its session id.
func payload(dir, ev, project, rollout string) ([]byte, string, error) {
	p, err := os.ReadFile(filepath.Join(dir, ev+".json"))
	if err != nil {
		return nil, "", err
	}
	var probe struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal(p, &probe); err != nil {
		return nil, "", fmt.Errorf("%s.json: %w", ev, err)
	}
	if p, err = sjson.SetBytes(p, "cwd", project); err != nil {
		return nil, "", err
	}
	if p, err = sjson.SetBytes(p, "transcript_path", rollout); err != nil {
		return nil, "", err
	}
	return p, probe.SessionID, nil
}

// copyLog copies a generated log into place and builds the copy's index (the
// index names the file it describes, so a copied index would be rebuilt by the
// first timed run instead).
func copyLog(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	for _, p := range []string{dst, dst + ".idx", dst + ".lock"} {
		os.Remove(p)
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	// Written back before timing: half a gigabyte of dirty pages flushing in
	// the background competes with the timed hooks of the 1,000,000-event
	// cells (they read ~1 ms slower than at 10,000 in the bench, the same when
	// timed directly).
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return benchgen.BuildIndex(dst)
}

// syncFile writes path's data back to the disk.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

type sample struct {
	Wall   float64 `json:"wall"`
	CPU    float64 `json:"cpu"`
	RSS    int64   `json:"rss"`
	Stderr string  `json:"stderr"`
	Kind   string  `json:"kind"`
	// Variant is the index in job.Variants of the run's binary and environment.
	Variant int `json:"variant,omitempty"`
}

// variant is one way of running a job's command: a binary, its arguments
// (nil: the job's) and what it adds to the environment.
type variant struct {
	Bin  string   `json:"bin"`
	Args []string `json:"args,omitempty"`
	Env  []string `json:"env,omitempty"`
}

// hookArgs is a codex-hook command line as Codex runs it from an install's hooks.
func hookArgs(ev, config, logPath string) []string {
	return []string{"codex-hook", "--event", ev, "--config", config, "--event-log", logPath}
}

// job is one or more cells' runs, handed to a spawner process: each round
// (warm-up included) runs every variant once with the same arguments and stdin.
type job struct {
	Variants []variant `json:"variants"`
	Args     []string  `json:"args"`
	Dir      string    `json:"dir"`
	Env      []string  `json:"env,omitempty"` // added to the spawner's environment, before the variant's
	Stdin    []byte    `json:"stdin"`
	Warmup   int       `json:"warmup"`
	Runs     int       `json:"runs"`
}

// measure runs j in a fresh, small spawner process (this program with -spawn)
// and adds the samples of variant i to cells[i]. On Linux a child's ru_maxrss
// starts at the peak RSS of the process it was forked from, and this process
// holds megabytes after folding a large log; a spawner that has done nothing
// else keeps that floor below the hook's own peak, so the table shows the
// hook's memory.
func measure(cells []*cell, j job) error {
	if len(cells) != len(j.Variants) {
		return fmt.Errorf("%d cells for %d variants", len(cells), len(j.Variants))
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	in, err := json.Marshal(j)
	if err != nil {
		return err
	}
	cmd := exec.Command(self, "-spawn")
	cmd.Stdin = bytes.NewReader(in)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%v: %s", err, strings.TrimSpace(errOut.String()))
	}
	var samples []sample
	if err := json.Unmarshal(out.Bytes(), &samples); err != nil {
		return err
	}
	return addSamples(cells, samples)
}

// addSamples adds each sample to the cell of its variant.
func addSamples(cells []*cell, samples []sample) error {
	for _, s := range samples {
		if s.Variant < 0 || s.Variant >= len(cells) {
			return fmt.Errorf("spawner: sample of variant %d, of %d", s.Variant, len(cells))
		}
		dst := cells[s.Variant]
		dst.Wall = append(dst.Wall, s.Wall)
		dst.CPU = append(dst.CPU, s.CPU)
		dst.RSS = append(dst.RSS, s.RSS)
		if s.Stderr != "" && !slices.Contains(dst.Stderr, s.Stderr) {
			dst.Stderr = append(dst.Stderr, s.Stderr)
		}
		if s.Kind != "" && !slices.Contains(dst.Outputs, s.Kind) {
			dst.Outputs = append(dst.Outputs, s.Kind)
		}
	}
	return nil
}

// spawn is the spawner: it reads a job on stdin, runs it and prints the samples
// of the timed runs as JSON.
func spawn(stdin io.Reader, stdout io.Writer) error {
	var j job
	if err := json.NewDecoder(stdin).Decode(&j); err != nil {
		return err
	}
	samples := make([]sample, 0, j.Runs*len(j.Variants))
	// A child's ru_maxrss starts at this process's peak RSS (exec records the
	// old address space's high-water mark), so this process must not grow:
	// its garbage is collected after every run, outside the timed window,
	// instead of piling up until the heap's first goal.
	debug.SetGCPercent(-1)
	for i := 0; i < j.Warmup+j.Runs; i++ {
		for _, k := range roundOrder(i, len(j.Variants)) {
			v := j.Variants[k]
			args := v.Args
			if args == nil {
				args = j.Args
			}
			s, err := once(v.Bin, args, j.Dir, append(slices.Clone(j.Env), v.Env...), j.Stdin)
			if err != nil {
				return fmt.Errorf("%s: %w", filepath.Base(v.Bin), err)
			}
			s.Variant = k
			if i >= j.Warmup {
				samples = append(samples, s)
			}
			runtime.GC()
		}
	}
	return json.NewEncoder(stdout).Encode(samples)
}

// roundOrder is the order of the variants in round i: each round starts one
// further on, so no variant always runs right after the same other one (whose
// page-cache, CPU-frequency or scheduler aftermath it would pay every time).
func roundOrder(i, n int) []int {
	order := make([]int, n)
	for k := range order {
		order[k] = (i + k) % n
	}
	return order
}

// hookEnviron is this process's environment without what would change which
// path a hook takes: the user's config and store (the database cells give
// their store explicitly).
func hookEnviron() []string {
	return slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, "HOOK_LOOP_STORE=") || strings.HasPrefix(kv, "HOOK_LOOP_CONFIG=")
	})
}

// binaryName names a binary in the cells and the table: its file name.
func binaryName(path string) string { return filepath.Base(path) }

// label is how stderr and the notes name a cell's variant.
func (c *cell) label() string {
	l := c.Binary
	if c.Store != "" {
		l += " on " + c.Store
	}
	return l
}

// The floors' rows; every row is also given as a multiple of the first two.
const (
	helloEvent   = "(Go hello-world reading stdin)"
	trueEvent    = "(any process: /bin/true)"
	versionEvent = "(start-up only: --version)"
)

// once runs the hook one time. A non-zero exit is an error: every answer Codex
// honours is an exit 0.
func once(bin string, args []string, dir string, env []string, in []byte) (sample, error) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(hookEnviron(), env...)
	cmd.Stdin = bytes.NewReader(in)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return sample{}, fmt.Errorf("%v: %s", err, strings.TrimSpace(errOut.String()))
	}
	ps := cmd.ProcessState
	s := sample{
		Wall:   float64(wall) / float64(time.Millisecond),
		CPU:    float64(ps.UserTime()+ps.SystemTime()) / float64(time.Millisecond),
		RSS:    maxRSS(ps),
		Stderr: strings.TrimSpace(errOut.String()),
		Kind:   outputKind(out.Bytes()),
	}
	return s, nil
}

// outputKind names the answer, so the table shows which path each cell took.
func outputKind(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return "allow"
	}
	var v struct {
		Decision      string `json:"decision"`
		SystemMessage string `json:"systemMessage"`
		HSO           *struct {
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if json.Unmarshal(b, &v) != nil {
		return "invalid"
	}
	switch {
	case v.Decision == "block":
		return "block"
	case v.HSO != nil && v.HSO.AdditionalContext != "":
		return "steer"
	case v.SystemMessage != "":
		return "allow + message"
	}
	return "other"
}

func median(xs []float64) float64 { return quantile(xs, 0.5) }

// quantile is the nearest-rank quantile.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.5) - 1
	i = max(0, min(i, len(s)-1))
	return s[i]
}

func report(w io.Writer, o options, cells []*cell) {
	lean, full := binaryName(o.bin), ""
	if o.full != "" {
		full = binaryName(o.full)
	}
	bins := "`" + lean + "`"
	if full != "" {
		bins = fmt.Sprintf("`%s` (what installs write) and `%s`, run by run alternately", lean, full)
		if o.store != "" {
			bins += fmt.Sprintf("; on postgres `%s` (what installs write for a database)", full)
		}
	}
	fmt.Fprintf(w, "codex-hook of %s, one process per event; %d runs per cell after %d warm-up runs, logs of %d interleaved sessions, each cell's ratio to the hello-world run in its own rounds; %s/%s, %d CPUs%s, %s.\n\n",
		bins, o.runs, o.warmup, o.sessions, runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), loadAverage(), time.Now().UTC().Format("2006-01-02"))
	floor := func(name string) float64 {
		for _, c := range cells {
			if c.Event == name {
				return median(c.Wall)
			}
		}
		return 0
	}
	hello, trueMs := floor(helloEvent), floor(trueEvent)
	ratio := func(x, unit float64) string {
		if unit <= 0 {
			return "–"
		}
		return fmt.Sprintf("%.2f×", x/unit)
	}
	fmt.Fprintln(w, "| event | binary | log events | answer | median wall (ms) | ÷ Go hello-world | ÷ /bin/true | p95 wall (ms) | median CPU (ms) | peak RSS (MiB) |")
	fmt.Fprintln(w, "| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, c := range cells {
		size, answer := thousands(c.Size), strings.Join(c.Outputs, ", ")
		if c.Size < 0 {
			size, answer = "–", "–"
		}
		name, binary := c.Event, c.Binary
		if c.Store != "" {
			name += " (" + c.Store + ")"
		}
		if binary == "" {
			binary = "–"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %.2f | %s | %s | %.2f | %.2f | %s |\n", name, binary, size, answer,
			median(c.Wall), ratio(median(c.Wall), c.unit(hello)), ratio(median(c.Wall), trueMs), quantile(c.Wall, 0.95), median(c.CPU), rssMiB(c.RSS))
	}
	fmt.Fprintln(w)
	byKey := map[string]*cell{}
	for _, c := range cells {
		byKey[cellKey(c.Event, c.Size, c.Store, c.Binary)] = c
	}
	// Budgets (DESIGN.md, issue 30), judged on what installs write.
	if full == "" {
		budgetLines(w, o, cells, byKey, lean, hello, "")
	} else {
		budgetLines(w, o, cells, byKey, lean, hello, fmt.Sprintf("Budgets (issue 30) on %s, what installs write:", lean))
		budgetLines(w, o, cells, byKey, full, hello, fmt.Sprintf("The same on %s, for reference (one process per event: what installs write without hook-loop-hook beside it):", full))
	}
	if o.store != "" {
		if full != "" {
			// The headed blocks above end with a blank line.
			fmt.Fprintf(w, "PostgreSQL (issue 30):\n\n")
		}
		// A hook on PostgreSQL, one-shot over loopback, adds ≤ 5 ms median
		// over the JSONL log at 10k and 1M events, judged on what installs
		// write for each (what moving the log to the database costs a user).
		for _, st := range o.storeList() {
			for _, ev := range o.events {
				pgLine(w, o, byKey, ev, st.label, lean, binaryName(o.fullOrBin()))
			}
		}
		var pgPeak int64
		for _, c := range cells {
			if c.Store != "" {
				pgPeak = max(pgPeak, slices.Max(append([]int64{0}, c.RSS...)))
			}
		}
		if pgPeak > 0 {
			fmt.Fprintf(w, "- peak RSS of the database hooks (%s): %.1f MiB (issue 17's budget ≤ 20 MiB: %s)\n", binaryName(o.fullOrBin()), float64(pgPeak)/(1<<20), verdict(pgPeak <= 20<<20))
		}
	}
	var notes []string
	for _, c := range cells {
		for _, s := range c.Stderr {
			notes = append(notes, fmt.Sprintf("- %s (%s) at %s events wrote to stderr: `%s`", c.Event, c.label(), thousands(c.Size), s))
		}
	}
	if len(notes) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, strings.Join(notes, "\n"))
	}
}

// unit is what c's wall time is divided by: the median of the hello-world
// runs interleaved with c's, else the hello-world row's (floor).
func (c *cell) unit(floor float64) float64 {
	if len(c.Hello) > 0 {
		return median(c.Hello)
	}
	return floor
}

// cellKey identifies a cell among one run's cells.
func cellKey(event string, size int, store, binary string) string {
	return fmt.Sprintf("%s\x00%d\x00%s\x00%s", event, size, store, binary)
}

// budgetLines prints issue 30's verdicts on the JSONL rows of binary, under
// heading when there is one.
func budgetLines(w io.Writer, o options, cells []*cell, byKey map[string]*cell, binary string, hello float64, heading string) {
	if heading != "" {
		fmt.Fprintf(w, "%s\n\n", heading)
	}
	for _, ev := range o.events {
		small, big := byKey[cellKey(ev, 10000, "", binary)], byKey[cellKey(ev, 1000000, "", binary)]
		if small == nil {
			continue
		}
		line := fmt.Sprintf("- %s (%s): median %.2f ms at 10,000 events", ev, binary, median(small.Wall))
		if unit := small.unit(hello); unit > 0 {
			r := median(small.Wall) / unit
			same := ""
			if len(small.Hello) > 0 {
				same = fmt.Sprintf(", %.2f ms in the same rounds", unit)
			}
			line += fmt.Sprintf(" = %.2f× the hello-world%s (budget ≤ 1.7×: %s; stretch 1.5×: %s)", r, same, verdict(r <= 1.7), verdict(r <= 1.5))
		}
		if big != nil {
			// Timed in the same rounds (run), so the raw medians compare.
			r := median(big.Wall) / median(small.Wall)
			line += fmt.Sprintf("; 1,000,000 events %.2f× that, in the same rounds (budget ≤ 1.05×: %s)", r, verdict(r <= 1.05))
		}
		fmt.Fprintln(w, line)
	}
	var peak int64
	for _, c := range cells {
		if c.Store == "" && c.Binary == binary && c.Size >= 0 {
			peak = max(peak, slices.Max(append([]int64{0}, c.RSS...)))
		}
	}
	if peak > 0 {
		fmt.Fprintf(w, "- peak RSS over every %s hook run: %.1f MiB (budget ≤ 12 MiB: %s)\n", binary, float64(peak)/(1<<20), verdict(peak <= 12<<20))
	}
	if heading != "" {
		fmt.Fprintln(w)
	}
}

// pgLine prints, per size, the median of ev on the database store (run by
// dbBin, what installs write for it) minus its median on the JSONL file run by
// fileBin (what installs write for that), with the budget's verdict, and the
// difference to dbBin's own JSONL rows: the backend's share.
func pgLine(w io.Writer, o options, byKey map[string]*cell, ev, store, fileBin, dbBin string) {
	var parts []string
	ok := true
	for _, size := range o.sizes {
		f, p := byKey[cellKey(ev, size, "", fileBin)], byKey[cellKey(ev, size, store, dbBin)]
		if f == nil || p == nil {
			continue
		}
		d := median(p.Wall) - median(f.Wall)
		if size == 10000 || size == 1000000 {
			ok = ok && d <= 5
		}
		part := fmt.Sprintf("%+.2f ms at %s events (%.2f vs %.2f)", d, thousands(size), median(p.Wall), median(f.Wall))
		if same := byKey[cellKey(ev, size, "", dbBin)]; same != nil && dbBin != fileBin {
			part += fmt.Sprintf(", %+.2f ms over %s's own JSONL rows", median(p.Wall)-median(same.Wall), dbBin)
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		return
	}
	fmt.Fprintf(w, "- %s on %s (%s) − JSONL (%s), median: %s (budget ≤ +5 ms at 10,000 and 1,000,000: %s)\n", ev, store, dbBin, fileBin, strings.Join(parts, "; "), verdict(ok))
}

// fullOrBin is the binary of the database cells: hook-loop, or -bin alone.
func (o options) fullOrBin() string {
	if o.full != "" {
		return o.full
	}
	return o.bin
}

// loadAverage is the 1-minute load average where /proc says it, because a busy
// machine inflates every wall time in the table.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return ""
	}
	return ", load average " + f[0] + " at the start"
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}

func rssMiB(xs []int64) string {
	if len(xs) == 0 || slices.Max(xs) == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f", float64(slices.Max(xs))/(1<<20))
}

func thousands(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
