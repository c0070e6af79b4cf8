package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	opencodeinstall "github.com/hook-loop/hook-loop/adapters/opencode/install"
	"github.com/hook-loop/hook-loop/testkit/need"
)

// ocBenchDriver loads the generated plugin and times its two hooks around each of
// N bash tool calls (tool.execute.before + tool.execute.after, exactly what
// opencode awaits per call), with the real hook-loop binary behind them.
const ocBenchDriver = `
import { pathToFileURL } from "node:url"
const [pluginPath, dir, nArg] = process.argv.slice(2)
const { HookLoopPlugin } = await import(pathToFileURL(pluginPath).href)
const hooks = await HookLoopPlugin({ directory: dir, worktree: "/", client: {} })
const n = Number(nArg)
const times = []
for (let i = 0; i < n; i++) {
  const input = { tool: "bash", sessionID: "ses_bench", callID: "call_" + i }
  const args = { command: "go test ./pkg" + i, description: "bench" }
  const t0 = performance.now()
  await hooks["tool.execute.before"](input, { args })
  await hooks["tool.execute.after"]({ ...input, args }, { title: args.command, output: "ok\n", metadata: { output: "ok\n", exit: 0, truncated: false } })
  times.push(performance.now() - t0)
}
times.sort((a, b) => a - b)
console.log(JSON.stringify({ n, median: times[Math.floor(n / 2)], p90: times[Math.floor(n * 0.9)], min: times[0], max: times[n - 1] }))
`

// BenchmarkOpencodePluginToolCall measures the plugin's overhead per tool call:
// the median (of 50 calls per iteration) of the time opencode would wait in the
// plugin's tool.execute.before + tool.execute.after, run in opencode's own
// embedded Bun (BUN_BE_BUN=1), or node when opencode is not installed.
//
//	go test ./e2e -run '^$' -bench OpencodePluginToolCall -benchtime 3x
func BenchmarkOpencodePluginToolCall(b *testing.B) {
	bin := hookLoopBinary(b)
	runtime, env := ocJSRuntime(b)
	dir := filepath.Join(b.TempDir(), "bench proj")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hook-loop.json"), []byte(ocLoop), 0o644); err != nil {
		b.Fatal(err)
	}
	plugin, err := opencodeinstall.RenderOpencodePlugin(opencodeinstall.OpencodePluginData{Bin: bin, Config: filepath.Join(dir, "hook-loop.json"),
		EventLog: projectLog(dir)})
	if err != nil {
		b.Fatal(err)
	}
	pluginPath := filepath.Join(dir, "hook_loop.mjs")
	driver := filepath.Join(dir, "driver.mjs")
	if err := os.WriteFile(pluginPath, plugin, 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(driver, []byte(ocBenchDriver), 0o644); err != nil {
		b.Fatal(err)
	}
	var medians []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(runtime, driver, pluginPath, dir, "50")
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("bench driver: %v\n%s", err, out)
		}
		var r struct {
			N                     int
			Median, P90, Min, Max float64
		}
		if err := json.Unmarshal(out, &r); err != nil {
			b.Fatalf("bench driver output %q: %v", out, err)
		}
		b.Logf("50 tool calls: median %.2f ms, p90 %.2f ms, min %.2f ms, max %.2f ms", r.Median, r.P90, r.Min, r.Max)
		medians = append(medians, r.Median)
	}
	b.StopTimer()
	sum := 0.0
	for _, m := range medians {
		sum += m
	}
	b.ReportMetric(sum/float64(len(medians)), "median-ms/toolcall")
}

// ocJSRuntime is opencode's embedded Bun when opencode is installed, else node.
func ocJSRuntime(b *testing.B) (string, []string) {
	dir, err := need.HarnessDir("opencode")
	if err != nil {
		b.Fatal(err)
	}
	oc := filepath.Join(dir, "node_modules", ".bin", "opencode")
	if _, err := os.Stat(oc); err == nil {
		return oc, append(os.Environ(), "BUN_BE_BUN=1")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		need.Skipf(b, "neither opencode (scripts/install-harnesses.sh opencode) nor node is available to run the plugin")
	}
	return node, os.Environ()
}
