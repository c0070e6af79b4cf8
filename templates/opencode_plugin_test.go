package templates

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// pluginHarness renders the plugin around a fake hook-loop (a shell script that
// records its argv and stdin and prints a scripted answer) and runs a node
// driver against it with a fake opencode client.
type pluginHarness struct {
	t      *testing.T
	dir    string
	node   string
	plugin string
	env    []string // extra environment for the driver
}

func newPluginHarness(t *testing.T, bin string, failClosed bool, fakeAnswer string) *pluginHarness {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not found on PATH: cannot run the opencode plugin's unit tests")
	}
	dir := t.TempDir()
	if bin == "" {
		bin = filepath.Join(dir, "fake hook-loop")
		if err := os.WriteFile(bin, []byte(fakeHookLoop(node, dir)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "answer.json"), []byte(fakeAnswer), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src, err := Render("opencode/hook_loop.js.tmpl", opencodeData{Version: "test", Bin: bin, Config: filepath.Join(dir, "hook-loop.json"),
		EventLog: filepath.Join(dir, "events.jsonl"), FailClosed: failClosed, MaxStopBlocks: 8, TimeoutMS: 5000})
	if err != nil {
		t.Fatal(err)
	}
	plugin := filepath.Join(dir, "hook_loop.mjs")
	if err := os.WriteFile(plugin, src, 0o644); err != nil {
		t.Fatal(err)
	}
	return &pluginHarness{t: t, dir: dir, node: node, plugin: plugin}
}

// run executes body (JS with `hooks`, `prompts` (promptAsync calls) and `argv`
// in scope) with process.argv set as opencode's would be for mode.
func (h *pluginHarness) run(mode, body string) (stdout, stderr string) {
	h.t.Helper()
	driver := `import { pathToFileURL } from "node:url"
const prompts = []
process.argv = ["bun", "/$bunfs/root/src/index.js", ` + jsString(mode) + `]
const client = { session: { promptAsync: async (req) => { prompts.push(req); return { response: { status: 204 } } } } }
const { HookLoopPlugin } = await import(pathToFileURL(` + jsString(h.plugin) + `).href)
const hooks = await HookLoopPlugin({ directory: ` + jsString(h.dir) + `, worktree: "/", client })
const out = {}
try {
` + body + `
} catch (e) { out.thrown = String(e && e.message) }
out.prompts = prompts
console.log(JSON.stringify(out))
`
	f := filepath.Join(h.dir, "driver.mjs")
	if err := os.WriteFile(f, []byte(driver), 0o644); err != nil {
		h.t.Fatal(err)
	}
	cmd := exec.Command(h.node, f)
	cmd.Env = append(os.Environ(), h.env...)
	var so, se strings.Builder
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Run(); err != nil {
		h.t.Fatalf("driver: %v\nstdout: %s\nstderr: %s", err, so.String(), se.String())
	}
	return so.String(), se.String()
}

func (h *pluginHarness) calls() []string {
	b, _ := os.ReadFile(filepath.Join(h.dir, "calls.log"))
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

type driverOut struct {
	Thrown  string            `json:"thrown"`
	Prompts []json.RawMessage `json:"prompts"`
	Output  string            `json:"output"`
	System  []string          `json:"system"`
}

func parseOut(t *testing.T, s string) driverOut {
	t.Helper()
	var o driverOut
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &o); err != nil {
		t.Fatalf("driver output %q: %v", s, err)
	}
	return o
}

func TestPluginBlocksToolWithReasonAndSendsStdin(t *testing.T) {
	h := newPluginHarness(t, "", false, `{"action":"block","reason":"no rm -rf here"}`)
	out, _ := h.run("run", `await hooks["tool.execute.before"]({ tool: "bash", sessionID: "ses_1", callID: "c1" }, { args: { command: "rm -rf /" } })`)
	o := parseOut(t, out)
	if o.Thrown != "no rm -rf here" {
		t.Fatalf("thrown %q; want hook-loop's reason", o.Thrown)
	}
	calls := h.calls()
	if len(calls) != 1 {
		t.Fatalf("calls %q", calls)
	}
	argv, stdin, _ := strings.Cut(calls[0], "\t")
	if !strings.HasPrefix(argv, "opencode-hook --event tool.execute.before --config "+h.dir+"/hook-loop.json --event-log "+h.dir+"/events.jsonl") {
		t.Fatalf("argv %q", argv)
	}
	var payload struct {
		Hook, Directory string
		Input           struct{ Tool, SessionID, CallID string }
		Output          struct{ Args struct{ Command string } }
	}
	if err := json.Unmarshal([]byte(stdin), &payload); err != nil {
		t.Fatalf("stdin %q is not the event JSON: %v", stdin, err)
	}
	if payload.Hook != "tool.execute.before" || payload.Directory != h.dir || payload.Input.Tool != "bash" ||
		payload.Input.SessionID != "ses_1" || payload.Output.Args.Command != "rm -rf /" {
		t.Fatalf("stdin payload %+v", payload)
	}
}

func TestPluginStopRefusalUnderRunIsCapped(t *testing.T) {
	h := newPluginHarness(t, "", false, `{"action":"block","reason":"keep going: run the tests","stopBlocks":1,"maxStopBlocks":2}`)
	out, _ := h.run("run", `
for (let i = 0; i < 3; i++) {
  const before = prompts.length
  await hooks["experimental.text.complete"]({ sessionID: "ses_1", messageID: "m" + i, partID: "p" }, { text: "I am done" })
  // A refusal that was sent comes back through chat.message: not a person's prompt.
  if (prompts.length > before) await hooks["chat.message"]({ sessionID: "ses_1" }, { message: { id: "u" + i, role: "user", sessionID: "ses_1" }, parts: [{ type: "text", text: "keep going: run the tests" }] })
}
// session.idle is not the gate under opencode run.
await hooks.event({ event: { type: "session.idle", properties: { sessionID: "ses_1" } } })
`)
	o := parseOut(t, out)
	if o.Thrown != "" || len(o.Prompts) != 2 {
		t.Fatalf("promptAsync called %d times; want the cap of 2: %s", len(o.Prompts), out)
	}
	if !strings.Contains(string(o.Prompts[0]), `"path":{"id":"ses_1"}`) || !strings.Contains(string(o.Prompts[0]), `"text":"keep going: run the tests"`) {
		t.Fatalf("promptAsync request %s", o.Prompts[0])
	}
	var stops, others int
	for i, c := range h.calls() {
		if !strings.Contains(c, "--event experimental.text.complete") {
			others++
			continue
		}
		stops++
		if !strings.Contains(c, `"lastAssistantMessage":"I am done"`) || strings.Contains(c, `"stopHookActive":false`) != (i == 0) {
			t.Errorf("stop payload %d: %s", i, c)
		}
	}
	if stops != 3 || others != 0 {
		t.Fatalf("stop calls %d (want 3), other calls %d (want 0: echoes and idle are not reported): %q", stops, others, h.calls())
	}
}

func TestPluginStopRefusalOnIdleUnderServe(t *testing.T) {
	h := newPluginHarness(t, "", false, `{"action":"block","reason":"not yet","stopBlocks":1,"maxStopBlocks":8}`)
	out, _ := h.run("serve", `
await hooks["experimental.text.complete"]({ sessionID: "ses_2", messageID: "m1", partID: "p" }, { text: "finished" })
await hooks.event({ event: { type: "session.idle", properties: { sessionID: "ses_2" } } })
`)
	o := parseOut(t, out)
	if len(o.Prompts) != 1 || !strings.Contains(string(o.Prompts[0]), `"text":"not yet"`) {
		t.Fatalf("serve: promptAsync calls %s", out)
	}
	calls := h.calls()
	if len(calls) != 1 || !strings.Contains(calls[0], "--event session.idle") || !strings.Contains(calls[0], `"lastAssistantMessage":"finished"`) {
		t.Fatalf("serve: text.complete must not gate, session.idle must: %q", calls)
	}
}

func TestPluginStepWithToolCallIsNotAStop(t *testing.T) {
	h := newPluginHarness(t, "", false, `{"action":"block","reason":"not yet"}`)
	out, _ := h.run("run", `
await hooks.event({ event: { type: "message.part.updated", properties: { part: { type: "tool", messageID: "m1", sessionID: "ses_3" } } } })
await hooks["experimental.text.complete"]({ sessionID: "ses_3", messageID: "m1", partID: "p" }, { text: "I will run it" })
`)
	if o := parseOut(t, out); len(o.Prompts) != 0 {
		t.Fatalf("text of a step with a tool call was treated as a stop: %s", out)
	}
	if c := h.calls(); len(c) != 1 || c[0] != "" {
		t.Fatalf("hook-loop was asked: %q", c)
	}
}

func TestPluginSteerAppendsToToolOutput(t *testing.T) {
	h := newPluginHarness(t, "", false, `{"action":"steer","context":"note from hook-loop"}`)
	out, _ := h.run("run", `
const o = { title: "t", output: "hello\n", metadata: { exit: 0 } }
await hooks["tool.execute.after"]({ tool: "bash", sessionID: "s", callID: "c", args: { command: "echo hello" } }, o)
out.output = o.output
`)
	if o := parseOut(t, out); o.Output != "hello\n\n\nnote from hook-loop" {
		t.Fatalf("tool output %q", o.Output)
	}
	if c := h.calls(); !strings.Contains(c[0], `"exit":0`) {
		t.Fatalf("after payload lacks metadata.exit: %s", c[0])
	}
}

func TestPluginMissingBinaryFailsOpenOrClosed(t *testing.T) {
	missing := "/nonexistent/hook-loop"
	open := newPluginHarness(t, missing, false, "")
	out, errOut := open.run("run", `
await hooks["tool.execute.before"]({ tool: "bash", sessionID: "s", callID: "c" }, { args: { command: "ls" } })
await hooks["tool.execute.before"]({ tool: "bash", sessionID: "s", callID: "c2" }, { args: { command: "ls" } })
await hooks["experimental.text.complete"]({ sessionID: "s", messageID: "m", partID: "p" }, { text: "done" })
`)
	if o := parseOut(t, out); o.Thrown != "" || len(o.Prompts) != 0 {
		t.Fatalf("fail-open plugin refused: %s", out)
	}
	if n := strings.Count(strings.TrimSpace(errOut), "\n"); n != 0 || !strings.HasPrefix(errOut, "hook-loop: ") ||
		!strings.Contains(errOut, "/nonexistent/hook-loop") || !strings.Contains(errOut, "the agent proceeds") {
		t.Fatalf("want exactly one clear line naming the binary, got %q", errOut)
	}

	closed := newPluginHarness(t, missing, true, "")
	out, _ = closed.run("run", `await hooks["tool.execute.before"]({ tool: "bash", sessionID: "s", callID: "c" }, { args: { command: "ls" } })`)
	if o := parseOut(t, out); !strings.Contains(o.Thrown, "fail_closed") {
		t.Fatalf("fail_closed plugin let the tool run: %s", out)
	}
}

func TestPluginInitAwaitsNothing(t *testing.T) {
	// Every client call never settles: a factory that awaited one (the prototype's
	// deadlock under opencode run) would leave node with an unsettled await.
	h := newPluginHarness(t, "", false, `{"action":"allow"}`)
	driver := `import { pathToFileURL } from "node:url"
const never = () => new Promise(() => {})
const client = new Proxy({}, { get: () => new Proxy({}, { get: () => never }) })
const { HookLoopPlugin } = await import(pathToFileURL(` + jsString(h.plugin) + `).href)
const hooks = await HookLoopPlugin({ directory: "/tmp", worktree: "/", client, project: { id: "p" } })
console.log(Object.keys(hooks).sort().join(","))
`
	f := filepath.Join(h.dir, "init.mjs")
	if err := os.WriteFile(f, []byte(driver), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(h.node, f).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "tool.execute.before") {
		t.Fatalf("plugin init did not return its hooks: %v\n%s", err, out)
	}
	if c := h.calls(); len(c) != 1 || c[0] != "" {
		t.Fatalf("init ran hook-loop: %q", c)
	}
}

func TestPluginContextReachesTheWorkingAgent(t *testing.T) {
	h := newPluginHarness(t, "", false, `{"action":"steer","context":"loop: you are in state building"}`)
	out, _ := h.run("run", `
await hooks.event({ event: { type: "session.created", properties: { info: { id: "ses_4" } } } })
const title = { system: ["You are a title generator. You output ONLY a thread title."] }
await hooks["experimental.chat.system.transform"]({ sessionID: "ses_4" }, title)
const agent = { system: ["You are opencode"] }
await hooks["experimental.chat.system.transform"]({ sessionID: "ses_4" }, agent)
const later = { system: ["You are opencode"] }
await hooks["experimental.chat.system.transform"]({ sessionID: "ses_4" }, later)
out.system = [title.system.length, agent.system.length, later.system.length, agent.system[1]].map(String)
`)
	o := parseOut(t, out)
	if strings.Join(o.System, "|") != "1|2|1|loop: you are in state building" {
		t.Fatalf("system prompts (title, first step, second step): %q", o.System)
	}
}

func TestPluginSubagentCallsCountForTheParent(t *testing.T) {
	h := newPluginHarness(t, "", false, `{"action":"block","reason":"not yet"}`)
	out, _ := h.run("serve", `
await hooks.event({ event: { type: "session.created", properties: { info: { id: "ses_child", parentID: "ses_parent" } } } })
await hooks["chat.message"]({ sessionID: "ses_child" }, { message: { id: "u", role: "user", sessionID: "ses_child" }, parts: [{ type: "text", text: "subtask" }] })
await hooks["experimental.text.complete"]({ sessionID: "ses_child", messageID: "m", partID: "p" }, { text: "sub done" })
await hooks.event({ event: { type: "session.idle", properties: { sessionID: "ses_child" } } })
try { await hooks["tool.execute.before"]({ tool: "bash", sessionID: "ses_child", callID: "c" }, { args: { command: "ls" } }) } catch (e) { out.thrown = String(e.message) }
`)
	o := parseOut(t, out)
	if len(o.Prompts) != 0 || o.Thrown != "not yet" {
		t.Fatalf("child session: %s", out)
	}
	calls := h.calls()
	if len(calls) != 1 || !strings.Contains(calls[0], "--event tool.execute.before") || !strings.Contains(calls[0], `"parentSessionID":"ses_parent"`) {
		t.Fatalf("only the child's tool call is reported, with its parent: %q", calls)
	}
}

func TestPluginReportsSessionStartOnceBeforeTheFirstPrompt(t *testing.T) {
	h := newPluginHarness(t, "", false, `{"action":"allow"}`)
	h.run("run", `
// The prompt hook runs before the (asynchronous) session.created bus event.
await hooks["chat.message"]({ sessionID: "ses_5" }, { message: { id: "u", role: "user", sessionID: "ses_5" }, parts: [{ type: "text", text: "hi" }] })
await hooks.event({ event: { type: "session.created", properties: { info: { id: "ses_5" } } } })
await hooks["chat.message"]({ sessionID: "ses_5" }, { message: { id: "u2", role: "user", sessionID: "ses_5" }, parts: [{ type: "text", text: "again" }] })
`)
	var events []string
	for _, c := range h.calls() {
		f := strings.Fields(c)
		events = append(events, f[2])
	}
	if strings.Join(events, ",") != "session.created,chat.message,chat.message" {
		t.Fatalf("events reported: %v", events)
	}
}
