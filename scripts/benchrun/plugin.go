package main

// `benchrun plugin` times the generated opencode plugin and pi extension per
// tool call (before + after) in a Node host at several host sizes, comparing the
// one-shot hook per event, the `hook-loop serve` co-process, and one spawn of a
// Go hello-world (and of /bin/true) from the same host.

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/hook-loop/hook-loop/templates"
)

//go:embed plugin_driver.mjs
var driver []byte

type pluginOptions struct {
	bin, hello, config, work, harnessDir string
	harnesses                            []string
	rss                                  []int
	runs, warmup, rounds                 int
}

// pluginResult is one driver run: one harness at one host size.
type pluginResult struct {
	Harness string               `json:"harness"`
	RSSMiB  int                  `json:"rss_mib"`
	Modes   map[string][]float64 `json:"modes"`
}

func parsePluginFlags(args []string) (pluginOptions, error) {
	var o pluginOptions
	var harnesses, rss string
	fs := flag.NewFlagSet("benchrun plugin", flag.ContinueOnError)
	fs.StringVar(&o.bin, "bin", "", "hook-loop binary (required)")
	fs.StringVar(&o.hello, "hello", "", "Go hello-world binary built with the same flags (required)")
	fs.StringVar(&o.config, "config", "gallery/plan_execute.json", "loop DSL the hooks run")
	fs.StringVar(&o.work, "work", "", "scratch directory (default: a new temporary one)")
	fs.StringVar(&o.harnessDir, "harness-dir", os.Getenv("HOOK_LOOP_HARNESS_DIR"), "where scripts/install-harnesses.sh put pi (for its jiti loader)")
	fs.StringVar(&harnesses, "harnesses", "opencode,pi", "comma-separated")
	fs.StringVar(&rss, "rss", "50,1024", "host RSS sizes in MiB, comma-separated")
	fs.IntVar(&o.runs, "runs", 40, "timed tool calls per mode")
	fs.IntVar(&o.warmup, "warmup", 5, "untimed tool calls per mode at the start of each host run")
	fs.IntVar(&o.rounds, "rounds", 4, "host runs per harness and size, the sizes alternating (against drift); -runs is split among them")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.bin == "" || o.hello == "" {
		return o, fmt.Errorf("-bin and -hello are required")
	}
	o.harnesses = strings.Split(harnesses, ",")
	for _, s := range strings.Split(rss, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			return o, fmt.Errorf("-rss: %q is not a size in MiB", s)
		}
		o.rss = append(o.rss, n)
	}
	return o, nil
}

func runPlugin(o pluginOptions, stdout, stderr io.Writer) error {
	node, err := exec.LookPath("node")
	if err != nil {
		return fmt.Errorf("node not found on PATH: the plugin benchmark drives the plugins in node")
	}
	bin, err := filepath.Abs(o.bin)
	if err != nil {
		return err
	}
	hello, err := filepath.Abs(o.hello)
	if err != nil {
		return err
	}
	work, cleanup, err := scratch(o.work, "hook-loop-plugin-bench-")
	if err != nil {
		return err
	}
	defer cleanup()
	o.work = work
	// An explicit hooks file that is missing is an error (the hook would report
	// it on every event): declare no lifecycle hooks.
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(work, "no-lifecycle-hooks.json"), []byte(`{"hooks": []}`+"\n"), 0o644); err != nil {
		return err
	}
	jiti := ""
	if o.harnessDir != "" {
		jiti, _ = filepath.Abs(filepath.Join(o.harnessDir, "pi", "node_modules", "jiti", "lib", "jiti.mjs"))
	}
	rounds := max(1, min(o.rounds, o.runs))
	var results []pluginResult
	for _, h := range o.harnesses {
		if h == "pi" {
			if _, err := os.Stat(jiti); jiti == "" || err != nil {
				fmt.Fprintln(stderr, "skipping pi: its jiti loader is not installed (scripts/install-harnesses.sh pi, HOOK_LOOP_HARNESS_DIR)")
				continue
			}
		}
		// The host sizes alternate, a share of the runs each time, and the
		// samples are pooled: on a shared machine the load drifts over the
		// minutes one size's runs take, and the budget compares the sizes.
		pooled := make([]pluginResult, len(o.rss))
		for round := 0; round < rounds; round++ {
			for i, rss := range o.rss {
				ro := o
				ro.runs = o.runs/rounds + btoi(round < o.runs%rounds)
				r, err := runDriver(ro, node, bin, hello, jiti, h, rss)
				if err != nil {
					return fmt.Errorf("%s at %d MiB: %w", h, rss, err)
				}
				p := &pooled[i]
				if p.Modes == nil {
					p.Harness, p.RSSMiB, p.Modes = r.Harness, r.RSSMiB, map[string][]float64{}
				}
				p.RSSMiB = max(p.RSSMiB, r.RSSMiB)
				for m, v := range r.Modes {
					p.Modes[m] = append(p.Modes[m], v...)
				}
			}
		}
		for _, r := range pooled {
			fmt.Fprintf(stderr, "%-8s host %5d MiB: one-shot %.2f ms, co-process %.2f ms, hello-world spawn %.2f ms\n",
				h, r.RSSMiB, median(r.Modes["oneshot"]), median(r.Modes["coproc"]), median(r.Modes["hello"]))
			results = append(results, r)
		}
	}
	pluginReport(stdout, o, results)
	return nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// runDriver renders the plugin into a fresh project and runs the node driver.
func runDriver(o pluginOptions, node, bin, hello, jiti, harness string, rss int) (pluginResult, error) {
	project := filepath.Join(o.work, fmt.Sprintf("%s-%d", harness, rss))
	config, err := newProject(project, o.config)
	if err != nil {
		return pluginResult{}, err
	}
	data := map[string]any{"Version": "bench", "Config": config, "EventLog": filepath.Join(project, ".hook-loop", "events.jsonl"),
		"HooksConfig": filepath.Join(o.work, "no-lifecycle-hooks.json"), "Record": false, "Store": "", "Mode": "", "TimeoutMS": 30000, "FailClosed": false, "MaxStopBlocks": 8}
	name, file := "opencode/hook_loop.js.tmpl", filepath.Join(o.work, harness+"-plugin.mjs")
	data["Bin"] = bin
	if harness == "pi" {
		name, file = "pi/hook_loop.ts.tmpl", filepath.Join(o.work, harness+"-extension.ts")
		data["HookLoop"] = bin
		delete(data, "Bin")
	}
	src, err := templates.Render(name, data)
	if err != nil {
		return pluginResult{}, err
	}
	if err := os.WriteFile(file, src, 0o644); err != nil {
		return pluginResult{}, err
	}
	drv := filepath.Join(o.work, "driver.mjs")
	if err := os.WriteFile(drv, driver, 0o644); err != nil {
		return pluginResult{}, err
	}
	cmd := exec.Command(node, drv, harness, file, project, hello, strconv.Itoa(rss), strconv.Itoa(o.runs), strconv.Itoa(o.warmup), jiti)
	cmd.Dir = project
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return pluginResult{}, fmt.Errorf("driver: %v: %s", err, strings.TrimSpace(errOut.String()))
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var r pluginResult
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &r); err != nil {
		return pluginResult{}, fmt.Errorf("driver output %q: %w", out.String(), err)
	}
	if s := strings.TrimSpace(errOut.String()); s != "" {
		return pluginResult{}, fmt.Errorf("the plugin wrote to stderr (it failed to reach hook-loop?): %s", s)
	}
	return r, nil
}

func pluginReport(w io.Writer, o pluginOptions, rs []pluginResult) {
	order := "each mode in its own block, the co-process first"
	if os.Getenv("BENCH_BLOCKS") == "0" {
		order = "modes interleaved (BENCH_BLOCKS=0)"
	}
	fmt.Fprintf(w, "Plugin hooks per tool call (before + after), median of %d (%d host runs per size, the sizes alternating, %d warm-up calls each), %s; %s/%s, %d CPUs%s, %s.\n\n",
		o.runs, max(1, min(o.rounds, o.runs)), o.warmup, order, runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), loadAverage(), time.Now().UTC().Format("2006-01-02"))
	fmt.Fprintln(w, "| harness | host RSS (MiB) | one-shot hooks (ms) | co-process (ms) | Go hello-world spawn (ms) | /bin/true spawn (ms) | co-process ÷ hello-world | one-shot ÷ hello-world |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, r := range rs {
		one, co, hw, tr := median(r.Modes["oneshot"]), median(r.Modes["coproc"]), median(r.Modes["hello"]), median(r.Modes["true"])
		fmt.Fprintf(w, "| %s | %d | %.2f | %.2f | %.2f | %.2f | %.2f× | %.2f× |\n", r.Harness, r.RSSMiB, one, co, hw, tr, co/hw, one/hw)
	}
	fmt.Fprintln(w)
	// Budgets (issue 14): co-process per tool call ≤ 1× one hello-world spawn from
	// the same host, and flat (±20%) from the smallest host to the largest.
	byHarness := map[string][]pluginResult{}
	var harnesses []string
	for _, r := range rs {
		if _, ok := byHarness[r.Harness]; !ok {
			harnesses = append(harnesses, r.Harness)
		}
		byHarness[r.Harness] = append(byHarness[r.Harness], r)
	}
	for _, h := range harnesses {
		l := byHarness[h]
		worst := 0.0
		for _, r := range l {
			worst = max(worst, median(r.Modes["coproc"])/median(r.Modes["hello"]))
		}
		line := fmt.Sprintf("- %s: co-process ≤ 1× a hello-world spawn at every host size: %s (worst %.2f×)", h, verdict(worst <= 1), worst)
		if len(l) > 1 {
			small, big := median(l[0].Modes["coproc"]), median(l[len(l)-1].Modes["coproc"])
			ratio := big / small
			line += fmt.Sprintf("; %d MiB host ÷ %d MiB host: %.2f× (budget 0.8–1.2×: %s)", l[len(l)-1].RSSMiB, l[0].RSSMiB, ratio, verdict(ratio >= 0.8 && ratio <= 1.2))
		}
		fmt.Fprintln(w, line)
	}
}
