package e2e

// End-to-end tests of Python lifecycle hooks: the real hook-loop binary, run by
// the real Claude Code (or fed a captured hook payload), calls executors written
// with the Python SDK (sdk/python) — a `path` script and a `module` over stdio,
// and a HookServer over HTTP on loopback — and their
// decisions land in the event log. The SDK comes from hook-loop itself (it
// ships the files): nothing is installed.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"github.com/hook-loop/hook-loop/testkit/need"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/sjson"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/testkit/mockmodel/messages"
)

const pyHouse = `from hook_loop_hooks import LifecycleHooks, SessionStart, serve_stdio


class House(LifecycleHooks):
    def session_start(self, ctx: SessionStart):
        ctx.context = "HOUSE RULES: small commits, tests first.\n\n" + ctx.context
        return ctx


if __name__ == "__main__":
    serve_stdio(House())
`

const pyTelemetry = `from hook_loop_hooks import LifecycleHooks


class Telemetry(LifecycleHooks):
    def __init__(self, team="none"):
        self.team = team

    def loop_complete(self, ctx):
        # An unknown key beside a decision: ignored, with a warning in the log.
        return {"announce": False, "colour": self.team}
`

const pyGate = `from hook_loop_hooks import LifecycleHooks, serve_stdio


class Gate(LifecycleHooks):
    def session_start(self, ctx):
        ctx.proceed = False
        ctx.reason = "not on the delivery roster"
        return ctx


if __name__ == "__main__":
    serve_stdio(Gate())
`

// pyRaw answers without the SDK, with a key that is no decision.
const pyRaw = `import json, sys
req = json.loads(sys.stdin.read())
print(json.dumps({"jsonrpc": "2.0", "id": req["id"], "result": {"announce": False, "colour": "red"}}))
`

// pyServer serves phase_changed over HTTP on a free loopback port, which it
// prints first, with the bearer token from PHASES_TOKEN.
const pyServer = `import sys
from hook_loop_hooks import HookServer, LifecycleHooks


class Phases(LifecycleHooks):
    def phase_changed(self, ctx):
        ctx.message = "phase %s -> %s (via http)" % (ctx.from_, ctx.to)
        return ctx


srv = HookServer(Phases(), host="127.0.0.1", port=0, token_env="PHASES_TOKEN")
print(srv.server_address[1], flush=True)
srv.serve_forever()
`

type pyHooks struct {
	dir, state, cache string
}

// newPyHooks writes the executors into a config folder, with state and cache
// folders of their own (short: a unix socket path is bounded).
func newPyHooks(t *testing.T) *pyHooks {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		need.Skipf(t, "python3 is not installed: skipping the Python lifecycle hook tests")
	}
	root, err := os.MkdirTemp("", "hl-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	h := &pyHooks{dir: filepath.Join(root, "cfg"), state: filepath.Join(root, "st"), cache: filepath.Join(root, "ca")}
	t.Cleanup(func() {
		os.RemoveAll(root)
	})
	for name, src := range map[string]string{
		"hooks/house.py":          pyHouse,
		"hooks/gate.py":           pyGate,
		"acme_hooks/__init__.py":  "",
		"acme_hooks/telemetry.py": pyTelemetry,
		"server.py":               pyServer,
		"hooks/raw.py":            pyRaw,
	} {
		p := filepath.Join(h.dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, p, []byte(src))
	}
	return h
}

func (h *pyHooks) declare(t *testing.T, yaml string) string {
	t.Helper()
	p := filepath.Join(h.dir, "config.yaml")
	writeFile(t, p, []byte(yaml))
	return p
}

func (h *pyHooks) env(config string, extra ...string) []string {
	return append([]string{"HOOK_LOOP_CONFIG=" + config, "XDG_STATE_HOME=" + h.state, "XDG_CACHE_HOME=" + h.cache}, extra...)
}

// startServer runs server.py (the SDK from the repository's source folder, as
// a user's own service would have it installed) and returns its URL.
func (h *pyHooks) startServer(t *testing.T, token string) string {
	t.Helper()
	cmd := exec.Command("python3", filepath.Join(h.dir, "server.py"))
	cmd.Env = append(os.Environ(), "PYTHONPATH="+filepath.Join(repoRoot(), "sdk", "python"), "PHASES_TOKEN="+token)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("hook server did not start: %v\n%s", err, stderr.String())
	}
	return "http://127.0.0.1:" + strings.TrimSpace(line) + "/hook"
}

// records returns the payloads of the log's events of type typ by hook name.
func records(evs []eventlog.Event, typ string) map[string][]map[string]any {
	out := map[string][]map[string]any{}
	for _, e := range evs {
		if e.EventType == typ {
			name, _ := e.Payload["hook"].(string)
			out[name] = append(out[name], e.Payload)
		}
	}
	return out
}

// The real Claude Code runs the loop to done; a fresh `path` script adds house
// rules at session start, a `module` silences the completion (its
// unknown key is a warning), and a HookServer over HTTP words every phase change.
func TestPythonHooksClaudeToDone(t *testing.T) {
	t.Parallel()
	h := newPyHooks(t)
	token := "tok-e2e-phases"
	url := h.startServer(t, token)
	cfg := h.declare(t, fmt.Sprintf(`hooks:
  - name: house
    path: hooks/house.py
    on: [session_start]
  - name: telemetry
    module: acme_hooks.telemetry:Telemetry
    with: {team: platform}
    on: [loop_complete]
    idleSeconds: 120
  - name: phases
    url: %s
    tokenEnv: PHASES_TOKEN
    on: [phase_changed]
  - name: raw
    path: hooks/raw.py
    on: [loop_complete]
`, url))
	p := newClaudeProject(t, nil)
	r := p.run(t, messages.Script{Steps: []messages.Step{
		writePlan,
		messages.Bash("make test"),
		messages.Text("ALL STEPS PASS"),
	}}, "Add a greeting feature", h.env(cfg, "PHASES_TOKEN="+token)...)
	if r.exit != 0 || r.result["result"] != "ALL STEPS PASS" {
		t.Fatalf("claude exit %d, result %v", r.exit, r.result["result"])
	}
	main := r.mock.MainRequests()
	if first := strings.Join(messages.Texts(main[0].Messages()), "\n"); !strings.Contains(first, "HOUSE RULES: small commits, tests first.") {
		t.Errorf("the first request lacks the path hook's house rules:\n%s", first)
	}
	evs := p.events(t)
	if got := strings.Join(transitions(evs), ", "); !strings.HasSuffix(got, "-> done") {
		t.Fatalf("transitions = %s, want the loop done", got)
	}
	if f := records(evs, "hooks.failed"); len(f) != 0 {
		t.Fatalf("hooks failed: %v", f)
	}
	decided := records(evs, "hooks.decided")
	if len(decided["house"]) == 0 || decided["house"][0]["point"] != "session_start" {
		t.Errorf("house decisions = %v", decided["house"])
	}
	// The SDK sends decisions only; a raw answer's unknown key is a warning.
	if tel := decided["telemetry"]; len(tel) != 1 || fmt.Sprint(tel[0]["fields"]) != "map[announce:false]" || tel[0]["warnings"] != nil {
		t.Errorf("telemetry decisions = %v, want announce false", tel)
	}
	if raw := decided["raw"]; len(raw) != 1 || !strings.Contains(fmt.Sprint(raw[0]["warnings"]), `ignored result key "colour"`) {
		t.Errorf("raw decisions = %v, want a warning for colour", raw)
	}
	ph := decided["phases"]
	if len(ph) < 3 || !strings.Contains(fmt.Sprint(ph[0]["fields"]), "(via http)") {
		t.Errorf("phases decisions = %v, want one per transition from the HTTP hook", ph)
	}
	if strings.Contains(string(mustRead(t, projectLog(p.dir))), token) {
		t.Error("the bearer token reached the event log")
	}
}

// A refused session_start ends the Claude Code session before any model call.
// Claude Code 2.1.328 logs the SessionStart hook's continue:false as
// "requested preventContinuation" yet `claude -p` still submits the prompt; the
// refusal is kept in the log, so the prompt is refused with continue:false.
func TestPythonHooksClaudeSessionStartRefusedEndsSession(t *testing.T) {
	t.Parallel()
	h := newPyHooks(t)
	cfg := h.declare(t, `hooks:
  - name: gate
    path: hooks/gate.py
    keepAlive: true
    idleSeconds: 60
    on: [session_start]
`)
	p := newClaudeProject(t, nil)
	r := p.run(t, messages.Script{Steps: []messages.Step{messages.Text("I should never be asked.")}}, "Add a greeting feature", h.env(cfg)...)
	if n := len(r.mock.MainRequests()); n != 0 {
		t.Errorf("the model got %d requests after a refused session_start, want 0 (terminal_reason %v)", n, r.result["terminal_reason"])
	}
	evs := p.events(t)
	refused := records(evs, "hooks.refused")
	if g := refused["gate"]; len(g) == 0 || g[0]["reason"] != "not on the delivery roster" || g[0]["point"] != "session_start" {
		t.Errorf("hooks.refused = %v", refused)
	}
	if len(transitions(evs)) != 0 {
		t.Errorf("a refused session moved the loop: %v", transitions(evs))
	}
	t.Logf("claude -p exit %d, result %q, terminal_reason %v", r.exit, r.result["result"], r.result["terminal_reason"])
}

// Without a harness: the captured Claude SessionStart payload on the hook
// command, with each executor form; an older config's keepAlive is read and
// ignored (a new process per call).
func TestPythonHooksHookCommand(t *testing.T) {
	t.Parallel()
	h := newPyHooks(t)
	payload := mustRead(t, filepath.Join(repoRoot(), "..", "shared", "harness", "claude", "payloads", "events", "SessionStart-startup.json"))
	if len(payload) == 0 {
		payload = []byte(`{"session_id":"s-1","cwd":".","hook_event_name":"SessionStart","source":"startup"}`)
	}
	for _, tc := range []struct{ name, decl string }{
		{"path fresh", "path: hooks/gate.py"},
		{"path kept alive", "path: hooks/gate.py\n    keepAlive: true"},
		{"module kept alive", "module: gatemod:Gate"},
		{"module fresh", "module: gatemod\n    keepAlive: false"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			writeFile(t, filepath.Join(h.dir, "gatemod.py"), []byte(pyGate))
			cfg := h.declare(t, "hooks:\n  - name: gate\n    "+tc.decl+"\n    on: [session_start]\n")
			proj := t.TempDir()
			writeFile(t, filepath.Join(proj, "hook-loop.json"), mustRead(t, filepath.Join(repoRoot(), "gallery", "plan_execute.json")))
			for i := 0; i < 2; i++ {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				cmd := exec.CommandContext(ctx, hookLoopBinary(t), "claude-hook")
				cmd.Dir = proj
				cmd.Env = append(os.Environ(), h.env(cfg, "CLAUDE_PROJECT_DIR="+proj)...)
				// A new session each time, so the hook runs again.
				in, err := sjson.SetBytes(payload, "session_id", fmt.Sprintf("s-%d", i))
				if err != nil {
					t.Fatal(err)
				}
				cmd.Stdin = bytes.NewReader(in)
				out, err := cmd.Output()
				cancel()
				if err != nil {
					t.Fatalf("claude-hook: %v", err)
				}
				if !bytes.Contains(out, []byte(`"continue":false`)) || !bytes.Contains(out, []byte(`"stopReason":"not on the delivery roster"`)) {
					t.Fatalf("claude-hook answered %s, want continue:false with the reason", out)
				}
			}
			log := string(mustRead(t, projectLog(proj)))
			if strings.Count(log, `"event_type":"hooks.refused"`) != 2 || strings.Contains(log, "hooks.failed") {
				t.Errorf("event log:\n%s", log)
			}
		})
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return b
}
