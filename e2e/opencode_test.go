package e2e

// End-to-end tests of the opencode plugin against the real opencode 1.18.33 binary
// (npm opencode-ai, installed by scripts/install-harnesses.sh) and a scripted
// chat-completions model on 127.0.0.1. opencode's config, data, cache and state
// folders live in the test's temp dir; nothing leaves loopback.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/testkit/mockmodel/chat"
)

// ocLoop is the loop the scenarios run: bash exiting 0 with "verify" in the
// command passes the tests; the agent's "ALL DONE" then finishes the loop. Until
// then a stop is refused (at most max_stop_blocks times).
const ocLoop = `{
  "loop": {
    "id": "opencode_e2e",
    "initial_state": "building",
    "states": ["building", "verified", "done", "stopped"],
    "terminal_states": ["done", "stopped"],
    "stop_state": "stopped",
    "events": ["tests_passed", "finished"],
    "transitions": [
      {"from": "building", "event": "tests_passed", "to": "verified"},
      {"from": "verified", "event": "finished", "to": "done"}
    ],
    "max_stop_blocks": 3,
    "instructions": {"building": "Run the verification (sh verify.sh) until it exits 0.", "verified": "Say ALL DONE."}
  },
  "codex": {
    "event_map": [
      {"codex_event": "PostToolUse", "when": {"tool_name": "Bash", "command_match": "verify", "exit_code": 0}, "emit": "tests_passed"},
      {"codex_event": "Stop", "when": {"last_message_match": "ALL DONE"}, "emit": "finished"}
    ]
  }
}
`

// ocProject is one isolated opencode project with the plugin installed.
type ocProject struct {
	t        *testing.T
	opencode string
	dir      string // the project (its path has a space on purpose)
	env      []string
	mock     *chat.Server
	logPath  string
	outDir   string
}

func newOCProject(t *testing.T, steps []chat.Step) *ocProject {
	t.Helper()
	opencode := harnessBin(t, "opencode")
	bin := hookLoopBinary(t)
	mock, err := chat.Start(chat.Options{Steps: steps, TitleText: "E2E title"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mock.Close() })

	root := t.TempDir()
	p := &ocProject{t: t, opencode: opencode, dir: filepath.Join(root, "my proj"), mock: mock, outDir: filepath.Join(root, "out")}
	xdg := filepath.Join(root, "xdg")
	home := filepath.Join(root, "home")
	for _, d := range []string{p.dir, p.outDir, home, xdg + "/config/opencode", xdg + "/data", xdg + "/cache", xdg + "/state"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfg := map[string]any{
		"$schema": "https://opencode.ai/config.json",
		"provider": map[string]any{"mock": map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": "Mock",
			"options": map[string]any{"baseURL": mock.BaseURL(), "apiKey": "dummy-key"},
			"models": map[string]any{"mock-model": map[string]any{"name": "Mock Model", "tool_call": true,
				"limit": map[string]any{"context": 128000, "output": 4096}}},
		}},
		"model": "mock/mock-model", "small_model": "mock/mock-model", "autoupdate": false, "share": "disabled",
	}
	ocWriteJSON(t, filepath.Join(p.dir, "opencode.json"), cfg)
	if err := os.WriteFile(filepath.Join(p.dir, "hook-loop.json"), []byte(ocLoop), 0o644); err != nil {
		t.Fatal(err)
	}
	// opencode npm-installs @opencode-ai/plugin into every config dir on first
	// start (and retries for ~70 s without a registry). It skips that when
	// node_modules exists and package-lock.json already lists the package.
	for _, d := range []string{filepath.Join(p.dir, ".opencode"), filepath.Join(xdg, "config", "opencode")} {
		ocSeedDeps(t, d)
	}
	p.env = append(os.Environ(),
		"HOME="+home,
		"XDG_CONFIG_HOME="+xdg+"/config", "XDG_DATA_HOME="+xdg+"/data",
		"XDG_CACHE_HOME="+xdg+"/cache", "XDG_STATE_HOME="+xdg+"/state",
		"OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"OPENCODE_DISABLE_SHARE=1", "OPENCODE_DISABLE_CLAUDE_CODE=1",
		// Should anything still try the registry or any other host, it gets a
		// refused loopback port: only the mock (loopback, not proxied) answers.
		"npm_config_registry=http://127.0.0.1:9/",
		"HTTP_PROXY=http://127.0.0.1:9", "HTTPS_PROXY=http://127.0.0.1:9", "http_proxy=http://127.0.0.1:9", "https_proxy=http://127.0.0.1:9",
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost",
		// opencode takes its directory from $PWD, not from the process's working
		// directory; go test's own PWD would make it another (unconfigured) project.
		"PWD="+p.dir,
	)
	// The user's path: install the plugin with the real command.
	install := exec.Command(bin, "opencode", "install", "--write", "--destination", p.dir, "--dsl", filepath.Join(p.dir, "hook-loop.json"))
	install.Env = p.env
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("hook-loop opencode install: %v\n%s", err, out)
	}
	p.logPath = projectLog(p.dir)
	return p
}

func ocSeedDeps(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "node_modules"), 0o755); err != nil {
		t.Fatal(err)
	}
	ocWriteJSON(t, filepath.Join(dir, "package.json"), map[string]any{"dependencies": map[string]any{"@opencode-ai/plugin": "1.18.33"}})
	ocWriteJSON(t, filepath.Join(dir, "package-lock.json"), map[string]any{"lockfileVersion": 3,
		"packages": map[string]any{"": map[string]any{"dependencies": map[string]any{"@opencode-ai/plugin": "1.18.33"}}}})
}

func ocWriteJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// run runs `opencode run MESSAGE` to its end (bounded) and returns its exit status.
func (p *ocProject) run(message string) int {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.opencode, "run", "--print-logs", "--log-level", "DEBUG", message)
	cmd.Dir, cmd.Env = p.dir, p.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	_ = os.WriteFile(filepath.Join(p.outDir, "run.stdout"), stdout.Bytes(), 0o644)
	_ = os.WriteFile(filepath.Join(p.outDir, "run.stderr"), stderr.Bytes(), 0o644)
	if ctx.Err() != nil {
		p.dump()
		p.t.Fatalf("opencode run did not finish within 300 s")
	}
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		p.t.Fatalf("opencode run: %v", err)
	}
	return 0
}

// dump logs what helps to debug a failed scenario.
func (p *ocProject) dump() {
	p.t.Helper()
	for i, r := range p.mock.Requests() {
		var last []string
		for _, m := range r.Messages {
			if m.Role != "system" {
				last = append(last, m.Role+": "+ocTrunc(m.Content, 200))
			}
		}
		p.t.Logf("mock request %d (tools=%d step=%d): %s -> %+v", i+1, len(r.Tools), r.Step, strings.Join(last, " | "), r.Reply)
		for _, m := range r.Messages {
			if m.Role == "system" {
				p.t.Logf("  system (%d chars): ...%s", len(m.Content), ocTrunc(m.Content[max(0, len(m.Content)-300):], 300))
			}
		}
	}
	if b, err := os.ReadFile(p.logPath); err == nil {
		p.t.Logf("event log:\n%s", ocTrunc(string(b), 6000))
	}
	if b, err := os.ReadFile(filepath.Join(p.outDir, "run.stderr")); err == nil {
		var keep []string
		for _, l := range strings.Split(string(b), "\n") {
			if strings.Contains(l, "hook-loop") || strings.Contains(l, "ERROR") || strings.Contains(l, "plugin") || strings.Contains(l, "loading path") || strings.Contains(l, "modelID") {
				keep = append(keep, ocTrunc(l, 300))
			}
		}
		p.t.Logf("opencode stderr (filtered):\n%s", strings.Join(keep, "\n"))
	}
}

func ocTrunc(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// ocLogEvent is one line of the event log, the fields the tests read.
type ocLogEvent struct {
	SessionID string          `json:"session_id"`
	State     string          `json:"state"`
	EventType string          `json:"event_type"`
	Payload   json.RawMessage `json:"payload"`
}

func (p *ocProject) events() []ocLogEvent {
	p.t.Helper()
	f, err := os.Open(p.logPath)
	if err != nil {
		p.t.Fatalf("event log: %v", err)
	}
	defer f.Close()
	var out []ocLogEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e ocLogEvent
		if json.Unmarshal(sc.Bytes(), &e) == nil {
			out = append(out, e)
		}
	}
	return out
}

// transitions lists "from -event-> to" of every applied transition.
func (p *ocProject) transitions() []string {
	p.t.Helper()
	out, err := ocReadTransitions(p.logPath)
	if err != nil {
		p.t.Fatal(err)
	}
	return out
}

// ocReadTransitions reads the applied transitions from a log; a missing log has none.
func ocReadTransitions(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, line := range bytes.Split(b, []byte("\n")) {
		var e ocLogEvent
		if json.Unmarshal(line, &e) != nil || e.EventType != "state_transitioned" {
			continue
		}
		var t struct{ From, Event, To string }
		_ = json.Unmarshal(e.Payload, &t)
		out = append(out, t.From+" -"+t.Event+"-> "+t.To)
	}
	return out, nil
}

// agentTexts are the non-system messages of request r, as "role: text" strings.
func ocAgentTexts(r chat.Request) []string {
	var out []string
	for _, m := range r.Messages {
		if m.Role != "system" {
			out = append(out, m.Role+": "+m.Content)
		}
	}
	return out
}

func TestOpencodeBlocksRiskyBash(t *testing.T) {
	p := newOCProject(t, []chat.Step{
		chat.ToolCall("bash", map[string]any{"command": "rm -rf ./important", "description": "clean up"}),
		chat.ToolCall("bash", map[string]any{"command": "echo after-block > after.txt", "description": "go on"}),
		chat.ToolCall("bash", map[string]any{"command": "sh verify.sh", "description": "verify"}),
		chat.Text("ALL DONE"),
	})
	if err := os.WriteFile(filepath.Join(p.dir, "verify.sh"), []byte("echo ok\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(p.dir, "important"), 0o755); err != nil {
		t.Fatal(err)
	}
	p.run("clean the project")
	reqs := p.mock.AgentRequests()
	if len(reqs) < 3 {
		p.dump()
		t.Fatalf("the run stopped after %d model requests; want the run to go on after the block", len(reqs))
	}
	blocked := reqs[1].LastToolResult()
	if !strings.Contains(blocked, "hook-loop blocked a risky command") {
		p.dump()
		t.Fatalf("the model's tool result for rm -rf is %q; want hook-loop's reason", blocked)
	}
	if _, err := os.Stat(filepath.Join(p.dir, "important")); err != nil {
		t.Fatalf("the blocked command ran anyway: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(p.dir, "after.txt")); err != nil || strings.TrimSpace(string(b)) != "after-block" {
		p.dump()
		t.Fatalf("the run did not go on with the next tool call: %v %q", err, b)
	}
}

func TestOpencodeExitCodeRules(t *testing.T) {
	// The second model request comes after the exit-3 call's tool.execute.after:
	// the step snapshots the loop's transitions right then.
	var logPath string
	var afterFail []string
	var afterFailErr error
	p := newOCProject(t, []chat.Step{
		// Text before a tool call in the same step is not a final answer: no stop.
		chat.Func(func(*chat.Request) chat.Reply {
			return chat.Reply{Text: "Let me verify first.", ToolCalls: []chat.Call{
				chat.NewCall("bash", map[string]any{"command": "sh verify.sh; exit 3", "description": "verify (fails)"})}}
		}),
		chat.Func(func(r *chat.Request) chat.Reply {
			afterFail, afterFailErr = ocReadTransitions(logPath)
			return chat.Reply{ToolCalls: []chat.Call{chat.NewCall("bash", map[string]any{"command": "sh verify.sh", "description": "verify"})}}
		}),
		chat.Text("ALL DONE"),
	})
	logPath = p.logPath
	if err := os.WriteFile(filepath.Join(p.dir, "verify.sh"), []byte("echo verifying\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p.run("verify the project")
	if p.mock.StepsUsed() < 2 {
		p.dump()
		t.Fatalf("the model was asked only %d times", p.mock.StepsUsed())
	}
	if afterFailErr != nil || len(afterFail) != 0 {
		p.dump()
		t.Fatalf("after the exit-3 call the loop moved: %v (%v)", afterFail, afterFailErr)
	}
	got := p.transitions()
	if len(got) < 1 || got[0] != "building -tests_passed-> verified" {
		p.dump()
		t.Fatalf("transitions %v; want the exit-0 verify to advance building -> verified", got)
	}
	// The exit-3 result reached hook-loop (so "did not advance" is not "never saw it").
	if got := p.mock.AgentRequests()[1].LastToolResult(); !strings.Contains(got, "verifying") {
		t.Fatalf("the exit-3 call's output %q", got)
	}
	if n := len(p.mock.AgentRequests()); n != 3 {
		p.dump()
		t.Fatalf("%d model requests; want 3 (no follow-up: the text before the tool call was not taken for a stop)", n)
	}
	posts := 0
	for _, e := range p.events() {
		if e.EventType == "stop_contract_failed" {
			p.dump()
			t.Fatalf("a stop was refused in a run that only stopped once the loop was done")
		}
		if strings.Contains(string(e.Payload), "PostToolUse") || strings.Contains(e.EventType, "tool") {
			posts++
		}
	}
	if posts < 2 {
		p.dump()
		t.Fatalf("the log records %d tool events; want both calls", posts)
	}
}

func TestOpencodeRunRefusesStopUntilTerminal(t *testing.T) {
	p := newOCProject(t, []chat.Step{
		chat.Text("I think I am finished."), // not terminal: refused
		chat.ToolCall("bash", map[string]any{"command": "sh verify.sh", "description": "verify"}),
		chat.Text("ALL DONE"), // terminal: the run ends
	})
	if err := os.WriteFile(filepath.Join(p.dir, "verify.sh"), []byte("echo ok\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rc := p.run("build the feature")
	reqs := p.mock.AgentRequests()
	// 1: the first answer (refused); 2: hook-loop's reason as a new user message,
	// answered with the verify call; 3: its result, answered with ALL DONE (allowed).
	if len(reqs) != 3 || rc != 0 {
		p.dump()
		t.Fatalf("opencode run made %d model requests (rc %d); want 3 (answer, refusal follow-up, tool result)", len(reqs), rc)
	}
	second := reqs[1]
	last := second.LastMessage()
	if last.Role != "user" || !strings.Contains(last.Content, "building") {
		p.dump()
		t.Fatalf("after the refused stop the model received %s: %q; want hook-loop's reason as a new user message", last.Role, last.Content)
	}
	t.Logf("scenario 3: the model received after the refused stop: %q", ocAgentTexts(second))
	// The SessionStart text is in the first step's system prompt (the plugin reports
	// the session before its first prompt and adds the text in system.transform).
	sawContext := false
	for _, m := range reqs[0].Messages {
		sawContext = sawContext || (m.Role == "system" && strings.Contains(m.Content, "hook-loop is gating this session"))
	}
	if !sawContext {
		p.dump()
		t.Fatalf("the first model request's system prompt lacks hook-loop's SessionStart text")
	}
	if got := p.transitions(); strings.Join(got, ",") != "building -tests_passed-> verified,verified -finished-> done" {
		p.dump()
		t.Fatalf("transitions %v", got)
	}
	if p.mock.StepsUsed() != 3 {
		t.Fatalf("steps used %d", p.mock.StepsUsed())
	}
}

// freePort returns a loopback port that was free a moment ago.
func ocFreePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func TestOpencodeServeRefusesStopOnIdle(t *testing.T) {
	p := newOCProject(t, []chat.Step{
		chat.Text("I think I am finished."),
		chat.ToolCall("bash", map[string]any{"command": "sh verify.sh", "description": "verify"}),
		chat.Text("ALL DONE"),
	})
	if err := os.WriteFile(filepath.Join(p.dir, "verify.sh"), []byte("echo ok\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	port := ocFreePort(t)
	cmd := exec.Command(p.opencode, "serve", "--port", fmt.Sprint(port), "--hostname", "127.0.0.1", "--print-logs", "--log-level", "DEBUG")
	cmd.Dir, cmd.Env = p.dir, p.env
	stderr, _ := os.Create(filepath.Join(p.outDir, "run.stderr"))
	defer stderr.Close()
	cmd.Stdout, cmd.Stderr = stderr, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	q := "?directory=" + url.QueryEscape(p.dir)
	client := &http.Client{Timeout: 120 * time.Second}
	// Generous: on a loaded machine opencode serve takes a while to come up.
	deadline := time.Now().Add(180 * time.Second)
	for {
		resp, err := client.Get(base + "/global/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			p.dump()
			t.Fatalf("opencode serve did not answer on %s within 180 s", base)
		}
		time.Sleep(200 * time.Millisecond)
	}
	post := func(path string, body any) []byte {
		b, _ := json.Marshal(body)
		resp, err := client.Post(base+path+q, "application/json", bytes.NewReader(b))
		if err != nil {
			t.Fatalf("POST %s: %v", path, err)
		}
		defer resp.Body.Close()
		var buf bytes.Buffer
		buf.ReadFrom(resp.Body)
		if resp.StatusCode/100 != 2 {
			t.Fatalf("POST %s: %s %s", path, resp.Status, buf.String())
		}
		return buf.Bytes()
	}
	var sess struct{ ID string }
	if err := json.Unmarshal(post("/session", map[string]any{}), &sess); err != nil || sess.ID == "" {
		t.Fatalf("session create: %v %+v", err, sess)
	}
	post("/session/"+sess.ID+"/prompt_async", map[string]any{"parts": []any{map[string]any{"type": "text", "text": "build the feature"}}})

	ok := p.mock.WaitFor(240*time.Second, func(rs []chat.Request) bool {
		n := 0
		for _, r := range rs {
			if r.HasTools() {
				n++
			}
		}
		return n >= 3
	})
	if !ok {
		p.dump()
		t.Fatalf("serve: the model got %d requests; want 3 (answer, refusal follow-up, tool result)", len(p.mock.AgentRequests()))
	}
	reqs := p.mock.AgentRequests()
	last := reqs[1].LastMessage()
	if last.Role != "user" || !strings.Contains(last.Content, "building") {
		p.dump()
		t.Fatalf("after the refused stop the model received %s: %q; want hook-loop's reason", last.Role, last.Content)
	}
	// Once terminal, the idle stop is allowed: no fifth request comes.
	deadline = time.Now().Add(60 * time.Second)
	for !strings.Contains(strings.Join(p.transitions(), ","), "verified -finished-> done") {
		if time.Now().After(deadline) {
			p.dump()
			t.Fatalf("serve: the loop never reached done: %v", p.transitions())
		}
		time.Sleep(200 * time.Millisecond)
	}
	if p.mock.WaitFor(3*time.Second, func(rs []chat.Request) bool {
		n := 0
		for _, r := range rs {
			if r.HasTools() {
				n++
			}
		}
		return n >= 4
	}) {
		p.dump()
		t.Fatal("serve: the agent was sent on after the loop was done")
	}
}
