package templates

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/testkit/need"
)

// piCoproc renders the pi extension around the fake hook-loop and runs body in
// node with `h` (the extension's handlers by event) and `tool(cmd)` (one tool
// call: tool_call then tool_result) in scope, loading the .ts with jiti, the
// loader pi itself uses.
type piCoproc struct {
	t               *testing.T
	node, jiti, dir string
	ext, proj       string
	env             []string // extra environment for the driver
}

func newPiCoproc(t *testing.T, answer string) *piCoproc {
	t.Helper()
	node := need.Node(t)
	jiti := need.HarnessFile(t, "pi", "node_modules", "jiti", "lib", "jiti.mjs")
	dir := t.TempDir()
	bin := filepath.Join(dir, "fake hook-loop")
	proj := filepath.Join(dir, "proj")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{bin: fakeHookLoop(node, dir), filepath.Join(dir, "answer.json"): answer} {
		if err := os.WriteFile(name, []byte(data), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	src, err := Render("pi/hook_loop.ts.tmpl", map[string]any{"Version": "test", "HookLoop": bin,
		"Config": filepath.Join(proj, "hook-loop.json"), "EventLog": filepath.Join(proj, "events.jsonl"), "HooksConfig": "", "Store": "", "Mode": "", "State": "",
		"Record": false, "TimeoutMS": 5000, "FailClosed": false, "MaxStopBlocks": 8})
	if err != nil {
		t.Fatal(err)
	}
	ext := filepath.Join(dir, "hook_loop.ts")
	if err := os.WriteFile(ext, src, 0o644); err != nil {
		t.Fatal(err)
	}
	return &piCoproc{t: t, node: node, jiti: jiti, dir: dir, ext: ext, proj: proj}
}

func (p *piCoproc) run(body string) string {
	p.t.Helper()
	driver := `const { createJiti } = await import(` + jsString(p.jiti) + `)
const f = await createJiti(import.meta.url).import(` + jsString(p.ext) + `, { default: true })
const h = {}
f({ on: (n, fn) => (h[n] = fn), sendUserMessage() {} })
const ctx = { cwd: ` + jsString(p.proj) + `, hasUI: false, sessionManager: { getSessionId: () => "s" } }
const out = { answers: [] }
const tool = (cmd) => {
  out.answers.push(h.tool_call({ type: "tool_call", toolName: "bash", toolCallId: "c", input: { command: cmd } }, ctx))
  out.answers.push(h.tool_result({ type: "tool_result", toolName: "bash", toolCallId: "c", content: [] }, ctx))
}
` + body + `
console.log(JSON.stringify(out))
`
	f := filepath.Join(p.dir, "driver.mjs")
	if err := os.WriteFile(f, []byte(driver), 0o644); err != nil {
		p.t.Fatal(err)
	}
	// Bounded: an extension that waits forever must fail the test, not hang it.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.node, f)
	cmd.Dir = p.proj
	cmd.Env = append(os.Environ(), p.env...)
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		p.t.Fatalf("the driver did not finish within 60 s\n%s", out)
	}
	if err != nil {
		p.t.Fatalf("driver: %v\n%s", err, out)
	}
	return string(out)
}

func (p *piCoproc) modeLines() []string {
	b, _ := os.ReadFile(filepath.Join(p.dir, "modes.log"))
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// One co-process answers every event synchronously, answers matched by id.
func TestPiCoprocAnswersEveryEventOfTheHost(t *testing.T) {
	p := newPiCoproc(t, `{"action":"block","reason":"refused"}`)
	out := p.run(`tool("a"); tool("b"); tool("c")`)
	if strings.Count(out, `{"block":true,"reason":"refused"}`) != 3 {
		t.Fatalf("the refusals were not applied to every tool call: %s", out)
	}
	m := p.modeLines()
	if countPrefix(m, "serve ") != 1 || countPrefix(m, "oneshot ") != 0 {
		t.Fatalf("want one co-process and no one-shot hook, got %q", m)
	}
	b, _ := os.ReadFile(filepath.Join(p.dir, "calls.log"))
	calls := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(calls) != 6 || !strings.HasPrefix(calls[0], "pi-hook --event=tool_call --config="+p.proj) || !strings.Contains(calls[2], `"command":"b"`) {
		t.Fatalf("requests wrong or out of order: %q", calls)
	}
}

// A crash with an event in flight: that event is answered one-shot, the next
// one by a new co-process; three crashes in a row give the co-process up.
func TestPiCoprocCrashFallsBackAndRestarts(t *testing.T) {
	p := newPiCoproc(t, `{"action":"block","reason":"refused"}`)
	out := p.run(`tool("CRASH"); tool("ls")`)
	if strings.Count(out, `{"block":true,"reason":"refused"}`) != 2 {
		t.Fatalf("the crashed event or the next was not refused: %s", out)
	}
	m := p.modeLines()
	if countPrefix(m, "serve ") != 2 || countPrefix(m, "oneshot tool_call") != 1 {
		t.Fatalf("want a one-shot for the crashed event and a second co-process, got %q", m)
	}

	p = newPiCoproc(t, `{"action":"allow"}`)
	p.run(strings.Repeat(`h.tool_call({ type: "tool_call", toolCallId: "c", input: { command: "CRASH" } }, ctx)
`, 4))
	if m := p.modeLines(); countPrefix(m, "serve ") != 3 || countPrefix(m, "oneshot ") != 4 {
		t.Fatalf("want 3 co-process starts then one-shot hooks only, got %q", m)
	}
}

// An upgraded binary replaces the co-process at the next event.
func TestPiCoprocReplacedWhenTheBinaryChanges(t *testing.T) {
	p := newPiCoproc(t, `{"action":"allow"}`)
	bin := filepath.Join(p.dir, "fake hook-loop")
	p.run(`tool("a")
const fs = await import("node:fs")
fs.appendFileSync(` + jsString(bin) + `, "// upgraded\n")
const later = new Date(Date.now() + 5000)
fs.utimesSync(` + jsString(bin) + `, later, later)
tool("b")
await new Promise((r) => setTimeout(r, 300))
`)
	m := p.modeLines()
	if countPrefix(m, "serve ") != 2 || countPrefix(m, "oneshot ") != 0 {
		t.Fatalf("want a second co-process after the upgrade, got %q", m)
	}
	if first := strings.TrimPrefix(m[0], "serve "); countPrefix(m, "exit "+first) != 1 {
		t.Fatalf("the old co-process %s did not exit: %q", first, m)
	}
}

// When the co-process and the one-shot hook both hang, the event is answered as
// a hung one-shot hook is: the agent proceeds (one line said), or, when the loop
// file says fail_closed, the tool call is refused. The stuck co-process is
// replaced.
func TestPiCoprocHangTimesOutAsTheOneShotHook(t *testing.T) {
	for _, failClosed := range []bool{false, true} {
		var got [2]string
		for i, env := range []string{"HOOK_LOOP_COPROC=0", "HOOK_LOOP_COPROC=1"} {
			p := newPiCoproc(t, `{"action":"block","reason":"refused"}`)
			p.env = []string{env, "HOOK_LOOP_PI_TIMEOUT_MS=1500"}
			loop := fmt.Sprintf(`{"loop": {"fail_closed": %v}}`, failClosed)
			if err := os.WriteFile(filepath.Join(p.proj, "hook-loop.json"), []byte(loop), 0o644); err != nil {
				t.Fatal(err)
			}
			out := p.run(`tool("HANG"); tool("ls")`)
			if !strings.Contains(out, "no answer within 1500 ms") {
				t.Fatalf("%s: the timeout was not said: %s", env, out)
			}
			hung := strings.Contains(out, `"answers":[{"block":true,"reason":"hook-loop could not check this (no answer within 1500 ms) and the loop is fail_closed."}`)
			if hung != failClosed || !strings.Contains(out, `{"block":true,"reason":"refused"}`) {
				t.Fatalf("%s fail_closed=%v: answered %s", env, failClosed, out)
			}
			if m := p.modeLines(); i == 1 && (countPrefix(m, "serve ") != 2 || countPrefix(m, "oneshot ") != 1) {
				t.Fatalf("want the stuck co-process replaced by a new one and its event tried one-shot, got %q", m)
			}
			got[i] = out
		}
		if got[0] != got[1] {
			t.Fatalf("fail_closed=%v: co-process and one-shot hook answered a hang differently:\n one-shot   %s\n co-process %s", failClosed, got[0], got[1])
		}
	}
}

// Registering the extension starts nothing; the first event starts the
// co-process.
func TestPiCoprocStartsOnFirstUse(t *testing.T) {
	p := newPiCoproc(t, `{"action":"allow"}`)
	p.run(`if (!h.tool_call) throw new Error("no tool_call handler")`)
	if _, err := os.Stat(filepath.Join(p.dir, "modes.log")); !os.IsNotExist(err) {
		t.Fatalf("a process was started at load: %q", p.modeLines())
	}
	p.run(`tool("a")`)
	if m := p.modeLines(); countPrefix(m, "serve ") != 1 || countPrefix(m, "oneshot ") != 0 {
		t.Fatalf("the first event did not start the co-process: %q", m)
	}
}

// A co-process that hangs hands its event to a one-shot hook, as a crash does:
// the hook's refusal applies, never the timeout's fail-open.
func TestPiCoprocHangFallsBackToTheOneShotHook(t *testing.T) {
	p := newPiCoproc(t, `{"action":"block","reason":"refused"}`)
	p.env = []string{"HOOK_LOOP_PI_TIMEOUT_MS=1500"}
	out := p.run(`tool("COHANG"); tool("ls")`)
	if strings.Count(out, `{"block":true,"reason":"refused"}`) != 2 {
		t.Fatalf("the hung event or the next was not refused: %s", out)
	}
	if m := p.modeLines(); countPrefix(m, "serve ") != 2 || countPrefix(m, "oneshot tool_call") != 1 {
		t.Fatalf("want a one-shot for the hung event and a second co-process, got %q", m)
	}
}
