package templates

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func (h *pluginHarness) modeLines() []string {
	b, _ := os.ReadFile(filepath.Join(h.dir, "modes.log"))
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

func countPrefix(lines []string, prefix string) int {
	n := 0
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			n++
		}
	}
	return n
}

const toolCall = `await hooks["tool.execute.before"]({ tool: "bash", sessionID: "s", callID: "c" }, { args: { command: CMD } })
await hooks["tool.execute.after"]({ tool: "bash", sessionID: "s", callID: "c" }, { title: "t", output: "ok", metadata: {} })
`

func call(cmd string) string { return strings.ReplaceAll(toolCall, "CMD", jsString(cmd)) }

// One co-process answers every event of a host process, each answer matched to
// its request by id (the before and after of three tool calls: six requests,
// one process, no one-shot hook).
func TestPluginCoprocAnswersEveryEventOfTheHost(t *testing.T) {
	h := newPluginHarness(t, "", false, `{"action":"steer","context":"note"}`)
	out, _ := h.run("run", call("a")+call("b")+call("c")+`
const o = { title: "t", output: "x", metadata: {} }
await hooks["tool.execute.after"]({ tool: "bash", sessionID: "s", callID: "d" }, o)
out.output = o.output
`)
	if o := parseOut(t, out); o.Output != "x\n\nnote" {
		t.Fatalf("answer not applied: %s", out)
	}
	m := h.modeLines()
	if countPrefix(m, "serve ") != 1 || countPrefix(m, "oneshot ") != 0 {
		t.Fatalf("want one co-process and no one-shot hook, got %q", m)
	}
	if c := h.calls(); len(c) != 7 || !strings.Contains(c[2], `"command":"b"`) {
		t.Fatalf("requests out of order or lost: %q", c)
	}
}

// A co-process that dies with an event in flight: that event is answered by a
// one-shot hook (the refusal still applies), and the next event starts a new
// co-process.
func TestPluginCoprocCrashFallsBackAndRestarts(t *testing.T) {
	h := newPluginHarness(t, "", false, `{"action":"block","reason":"refused"}`)
	out, _ := h.run("run", `
try { await hooks["tool.execute.before"]({ tool: "bash", sessionID: "s", callID: "c1" }, { args: { command: "CRASH" } }) } catch (e) { out.first = String(e.message) }
await hooks["tool.execute.before"]({ tool: "bash", sessionID: "s", callID: "c2" }, { args: { command: "ls" } })
`)
	if o := parseOut(t, out); o.Thrown != "refused" || !strings.Contains(out, `"first":"refused"`) {
		t.Fatalf("the crashed event or the next was not refused: %s", out)
	}
	m := h.modeLines()
	if countPrefix(m, "serve ") != 2 || countPrefix(m, "oneshot tool.execute.before") != 1 {
		t.Fatalf("want a one-shot for the crashed event and a second co-process, got %q", m)
	}
}

// A co-process that keeps crashing is given up for one-shot hooks until the
// binary changes.
func TestPluginCoprocCrashLoopGivesUp(t *testing.T) {
	h := newPluginHarness(t, "", false, `{"action":"allow"}`)
	h.run("run", strings.Repeat(`await hooks["tool.execute.before"]({ tool: "bash", sessionID: "s", callID: "c" }, { args: { command: "CRASH" } })
`, 4))
	m := h.modeLines()
	if n := countPrefix(m, "serve "); n != 3 {
		t.Fatalf("want 3 co-process starts before giving up, got %d: %q", n, m)
	}
	if n := countPrefix(m, "oneshot "); n != 4 {
		t.Fatalf("want every event answered by a one-shot hook, got %d: %q", n, m)
	}
}

// An upgraded hook-loop binary (another size and mtime on disk) replaces the
// running co-process at the next event; the old one gets EOF and exits.
func TestPluginCoprocReplacedWhenTheBinaryChanges(t *testing.T) {
	h := newPluginHarness(t, "", false, `{"action":"allow"}`)
	bin := filepath.Join(h.dir, "fake hook-loop")
	out, _ := h.run("run", call("a")+`
const fs = await import("node:fs")
fs.appendFileSync(`+jsString(bin)+`, "// upgraded\n")
const later = new Date(Date.now() + 5000)
fs.utimesSync(`+jsString(bin)+`, later, later)
`+call("b")+`
await new Promise((r) => setTimeout(r, 300))
`)
	parseOut(t, out)
	m := h.modeLines()
	if countPrefix(m, "serve ") != 2 || countPrefix(m, "oneshot ") != 0 {
		t.Fatalf("want the old co-process ended and a new one started, got %q", m)
	}
	first := strings.TrimPrefix(m[0], "serve ")
	if countPrefix(m, "exit "+first) != 1 {
		t.Fatalf("the old co-process %s did not exit: %q", first, m)
	}
}

// HOOK_LOOP_COPROC=0 keeps a one-shot hook per event.
func TestPluginCoprocDisabled(t *testing.T) {
	h := newPluginHarness(t, "", false, `{"action":"allow"}`)
	h.env = []string{"HOOK_LOOP_COPROC=0"}
	h.run("run", call("a"))
	if m := h.modeLines(); countPrefix(m, "serve ") != 0 || countPrefix(m, "oneshot ") != 2 {
		t.Fatalf("want two one-shot hooks, got %q", m)
	}
}

// A binary that does not serve (its first line is no hello: an old hook-loop)
// is used one-shot, without losing the event in flight.
func TestPluginCoprocOldBinaryWithoutServe(t *testing.T) {
	h := newPluginHarness(t, "", false, `{"action":"block","reason":"old binary says no"}`)
	script := "#!/bin/sh\nif [ \"$1\" = serve ]; then echo 'No help topic for serve'; exit 3; fi\n" +
		"cat >/dev/null; echo oneshot >> " + jsString(filepath.Join(h.dir, "modes.log")) + "\ncat " + jsString(filepath.Join(h.dir, "answer.json")) + "\n"
	if err := os.WriteFile(filepath.Join(h.dir, "fake hook-loop"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	out, _ := h.run("run", `await hooks["tool.execute.before"]({ tool: "bash", sessionID: "s", callID: "c" }, { args: { command: "ls" } })`)
	if o := parseOut(t, out); o.Thrown != "old binary says no" {
		t.Fatalf("%s", out)
	}
}

// A co-process that exits right after answering (a replaced one finishing its
// queue) has its answer used, not the event run again one-shot.
func TestPluginCoprocAnswerBeforeExitIsUsed(t *testing.T) {
	h := newPluginHarness(t, "", false, `{"action":"block","reason":"refused"}`)
	for i := 0; i < 2; i++ {
		os.Remove(filepath.Join(h.dir, "modes.log"))
		out, _ := h.run("run", `await hooks["tool.execute.before"]({ tool: "bash", sessionID: "s", callID: "c" }, { args: { command: "LAST" } })`)
		if o := parseOut(t, out); o.Thrown != "refused" {
			t.Fatalf("%s", out)
		}
		if m := h.modeLines(); countPrefix(m, "oneshot ") != 0 {
			t.Fatalf("the answered event ran again one-shot: %q", m)
		}
	}
}

// When the co-process and the one-shot hook both hang, the event is answered as
// a hung one-shot hook is: the agent proceeds with one line said, or, in a
// fail_closed loop, the tool call is refused. The stuck co-process is killed and
// the next event is answered by a new one.
func TestPluginCoprocHangTimesOutAsTheOneShotHook(t *testing.T) {
	hang := `try { await hooks["tool.execute.before"]({ tool: "bash", sessionID: "s", callID: "c1" }, { args: { command: "HANG" } }) } catch (e) { out.first = String(e.message) }
`
	for _, failClosed := range []bool{false, true} {
		var got [2]string
		for i, env := range []string{"HOOK_LOOP_COPROC=0", "HOOK_LOOP_COPROC=1"} {
			h := newPluginHarness(t, "", failClosed, `{"action":"block","reason":"refused"}`)
			h.env = []string{env, "HOOK_LOOP_OPENCODE_TIMEOUT_MS=1500"}
			out, errOut := h.run("run", hang+`await hooks["tool.execute.before"]({ tool: "bash", sessionID: "s", callID: "c2" }, { args: { command: "ls" } })`)
			o := parseOut(t, out)
			if o.Thrown != "refused" {
				t.Fatalf("%s fail_closed=%v: the event after the hang was not answered: %s %s %q", env, failClosed, out, errOut, h.modeLines())
			}
			if !strings.Contains(errOut, "no answer within 1500 ms") {
				t.Fatalf("%s: the timeout was not said: %q", env, errOut)
			}
			got[i] = strings.ReplaceAll(out, `"first":`, "") + " " + errOut
			if failClosed != strings.Contains(out, `"first":"hook-loop: no answer within 1500 ms (tool.execute.before) (fail_closed)"`) {
				t.Fatalf("%s fail_closed=%v: the hung call was answered %s", env, failClosed, out)
			}
			if m := h.modeLines(); i == 1 && (countPrefix(m, "serve ") != 2 || countPrefix(m, "oneshot ") != 1) {
				t.Fatalf("want the stuck co-process replaced by a new one and its event tried one-shot, got %q", m)
			}
		}
		if got[0] != got[1] {
			t.Fatalf("fail_closed=%v: co-process and one-shot hook answered a hang differently:\n one-shot   %s\n co-process %s", failClosed, got[0], got[1])
		}
	}
}

// Loading the plugin starts nothing: the co-process is started by the first
// event that needs an answer.
func TestPluginCoprocStartsOnFirstUse(t *testing.T) {
	h := newPluginHarness(t, "", false, `{"action":"allow"}`)
	h.run("run", `await hooks["experimental.chat.system.transform"]({ sessionID: "s" }, { system: [] })`)
	if _, err := os.Stat(filepath.Join(h.dir, "modes.log")); !os.IsNotExist(err) {
		t.Fatalf("a process was started before any event was asked about: %q", h.modeLines())
	}
	h.run("run", call("a"))
	if m := h.modeLines(); countPrefix(m, "serve ") != 1 {
		t.Fatalf("the first event did not start the co-process: %q", m)
	}
}

// An upgrade that keeps the binary's size and mtime (a reproducible build
// copied with cp -p) still replaces the co-process: the file's ctime changed.
func TestPluginCoprocReplacedWhenTheBinaryChangesKeepingSizeAndMtime(t *testing.T) {
	h := newPluginHarness(t, "", false, `{"action":"allow"}`)
	bin := filepath.Join(h.dir, "fake hook-loop")
	out, errOut := h.run("run", `
const fs = await import("node:fs")
fs.utimesSync(`+jsString(bin)+`, 1700000000, 1700000000)
const before = fs.statSync(`+jsString(bin)+`)
`+call("a")+`
await new Promise((r) => setTimeout(r, 20))
const src = fs.readFileSync(`+jsString(bin)+`, "utf8")
fs.writeFileSync(`+jsString(bin)+`, src.replace("const fs = require", "const fs=  require"))
fs.utimesSync(`+jsString(bin)+`, 1700000000, 1700000000)
const after = fs.statSync(`+jsString(bin)+`)
if (after.size !== before.size || after.mtimeMs !== before.mtimeMs) throw new Error("size or mtime changed")
`+call("b")+`
await new Promise((r) => setTimeout(r, 300))
`)
	parseOut(t, out)
	if m := h.modeLines(); countPrefix(m, "serve ") != 2 || countPrefix(m, "oneshot ") != 0 {
		t.Fatalf("want the old co-process ended and a new one started, got %q\n%s\n%s\n%q", m, out, errOut, h.calls())
	}
}

// A co-process that hangs hands its event to a one-shot hook, as a crash does:
// the hook's refusal applies, never the timeout's fail-open.
func TestPluginCoprocHangFallsBackToTheOneShotHook(t *testing.T) {
	h := newPluginHarness(t, "", false, `{"action":"block","reason":"refused"}`)
	h.env = []string{"HOOK_LOOP_OPENCODE_TIMEOUT_MS=1500"}
	out, errOut := h.run("run", `try { await hooks["tool.execute.before"]({ tool: "bash", sessionID: "s", callID: "c1" }, { args: { command: "COHANG" } }) } catch (e) { out.first = String(e.message) }
await hooks["tool.execute.before"]({ tool: "bash", sessionID: "s", callID: "c2" }, { args: { command: "ls" } })`)
	if o := parseOut(t, out); o.Thrown != "refused" || !strings.Contains(out, `"first":"refused"`) {
		t.Fatalf("the hung event or the next was not refused: %s %s", out, errOut)
	}
	if m := h.modeLines(); countPrefix(m, "serve ") != 2 || countPrefix(m, "oneshot tool.execute.before") != 1 {
		t.Fatalf("want a one-shot for the hung event and a second co-process, got %q", m)
	}
}
