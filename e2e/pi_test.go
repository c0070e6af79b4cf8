package e2e

// End-to-end tests of the pi extension against the real pi 0.73.1 (npm
// @mariozechner/pi-coding-agent, installed by scripts/install-harnesses.sh) and a
// scripted chat-completions model on 127.0.0.1. HOME and the XDG folders live in
// the test's temp dir, PI_OFFLINE=1 keeps pi from downloading anything, and -nc
// stops it from reading AGENTS.md files from every parent folder.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/testkit/mockmodel/chat"
)

// piLoop: a bash command with "run-tests" in it that exits 0 passes the tests;
// the agent's "ALL DONE" then finishes the loop. Until then a stop is refused.
const piLoop = `{
  "loop": {
    "id": "pi_e2e",
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
    "instructions": {"building": "Run the tests (a command with run-tests in it) until they exit 0.", "verified": "Say ALL DONE."}
  },
  "codex": {
    "event_map": [
      {"codex_event": "PostToolUse", "when": {"tool_name": "Bash", "command_match": "run-tests", "exit_code": 0}, "emit": "tests_passed"},
      {"codex_event": "Stop", "when": {"last_message_match": "ALL DONE"}, "emit": "finished"}
    ]
  }
}
`

// piProject is one isolated pi project with the hook-loop extension installed.
type piProject struct {
	t       *testing.T
	pi      string
	dir     string // the project; its path has a space on purpose
	env     []string
	mock    *chat.Server
	logPath string
	loop    []byte
}

func newPiProject(t *testing.T, steps []chat.Step) *piProject {
	t.Helper()
	piBin := piHarnessBin(t)
	bin := piHookLoopBin(t)
	mock, err := chat.Start(chat.Options{Steps: steps, TitleText: "E2E title"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mock.Close() })

	root := t.TempDir()
	p := &piProject{t: t, pi: piBin, dir: filepath.Join(root, "my proj"), mock: mock, loop: []byte(piLoop)}
	home := filepath.Join(root, "home")
	xdg := filepath.Join(root, "xdg")
	agent := filepath.Join(home, ".pi", "agent")
	for _, d := range []string{p.dir, agent, xdg + "/config", xdg + "/data", xdg + "/cache", xdg + "/state"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The custom provider, exactly as the shared probe ran pi offline.
	models := map[string]any{"providers": map[string]any{"mock": map[string]any{
		"baseUrl": mock.BaseURL(), "api": "openai-completions", "apiKey": "mock-key",
		"compat": map[string]any{"supportsDeveloperRole": false, "supportsReasoningEffort": false},
		"models": []any{map[string]any{"id": "mock-model", "name": "Mock Model", "reasoning": false, "input": []string{"text"},
			"contextWindow": 128000, "maxTokens": 4096,
			"cost": map[string]any{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}}},
	}}}
	b, _ := json.MarshalIndent(models, "", "  ")
	if err := os.WriteFile(filepath.Join(agent, "models.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p.dir, "hook-loop.json"), p.loop, 0o644); err != nil {
		t.Fatal(err)
	}
	// The project's "tests": evidence comes from the command that ran them
	// (`sh run-tests`), never from text another program prints.
	if err := os.WriteFile(filepath.Join(p.dir, "run-tests"), []byte("echo \"run-tests $*\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "PI_") || strings.HasPrefix(k, "XDG_") || k == "HOME" || k == "HOOK_LOOP_PI_TIMEOUT_MS" {
			continue
		}
		env = append(env, kv)
	}
	p.env = append(env, "HOME="+home,
		"XDG_CONFIG_HOME="+xdg+"/config", "XDG_DATA_HOME="+xdg+"/data",
		"XDG_CACHE_HOME="+xdg+"/cache", "XDG_STATE_HOME="+xdg+"/state",
		"PI_OFFLINE=1", "PI_TELEMETRY=0", "PI_SKIP_VERSION_CHECK=1",
		// a loaded CI machine must not turn a slow hook into a fail-open
		"HOOK_LOOP_PI_TIMEOUT_MS=30000",
	)
	// The user's path: install the extension with the real command.
	install := exec.Command(bin, "pi", "install", "--write", "--destination="+p.dir, "--dsl="+filepath.Join(p.dir, "hook-loop.json"))
	install.Env = p.env
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("hook-loop pi install: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(p.dir, ".pi", "extensions", "hook_loop.ts")); err != nil {
		t.Fatalf("pi install wrote no extension: %v", err)
	}
	p.logPath = projectLog(p.dir)
	return p
}

func (p *piProject) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, p.pi, append([]string{"--provider", "mock", "--model", "mock-model", "-nc"}, args...)...)
	cmd.Dir, cmd.Env = p.dir, p.env
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// print runs `pi -p PROMPT` to its end and returns stdout, stderr and the status.
func (p *piProject) print(prompt string) (string, string, int) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := p.command(ctx, "-p", prompt)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		p.dump(stderr.String())
		p.t.Fatalf("pi -p did not finish within 120 s")
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		p.t.Fatalf("pi -p: %v", err)
	}
	return stdout.String(), stderr.String(), code
}

// events returns the log's entries of one type.
func (p *piProject) events(eventType string) []map[string]any {
	p.t.Helper()
	data, err := os.ReadFile(p.logPath)
	if err != nil {
		return nil
	}
	var out []map[string]any
	for _, line := range strings.Split(string(data), "\n") {
		var e map[string]any
		if json.Unmarshal([]byte(line), &e) == nil && e["event_type"] == eventType {
			out = append(out, e)
		}
	}
	return out
}

func (p *piProject) transitions() []string {
	var out []string
	for _, e := range p.events(eventlog.TypeStateTransitioned) {
		pl, _ := e["payload"].(map[string]any)
		out = append(out, pl["from"].(string)+"-"+pl["event"].(string)+"->"+pl["to"].(string))
	}
	return out
}

func (p *piProject) dump(stderr string) {
	p.t.Helper()
	for _, r := range p.mock.Requests() {
		var msgs []string
		for _, m := range r.Messages {
			if m.Role != "system" {
				msgs = append(msgs, m.Role+": "+piTrunc(m.Content, 240))
			}
		}
		p.t.Logf("mock request %d (tools=%d step=%d): %s -> %+v", r.Seq, len(r.Tools), r.Step, strings.Join(msgs, " | "), r.Reply)
	}
	if b, err := os.ReadFile(p.logPath); err == nil {
		p.t.Logf("event log:\n%s", piTrunc(string(b), 8000))
	}
	if stderr != "" {
		p.t.Logf("pi stderr:\n%s", piTrunc(stderr, 4000))
	}
}

func piTrunc(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// userTexts are the user messages the model saw, in order.
func userTexts(r chat.Request) []string { return r.UserTexts() }

func containsAny(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// Scenario 1: a risky bash command and a write to hook-loop.json are refused, the
// model receives the reasons as the tool results, and the run goes on.
func TestPiRefusesRiskyCommandAndLoopFileWrite(t *testing.T) {
	t.Parallel()
	p := newPiProject(t, []chat.Step{
		chat.ToolCall("bash", map[string]any{"command": "git push --force origin main"}),
		chat.ToolCall("write", map[string]any{"path": "hook-loop.json", "content": "{}"}),
		chat.ToolCall("bash", map[string]any{"command": "sh run-tests ok"}),
		chat.Text("ALL DONE"),
	})
	stdout, stderr, code := p.print("ship it")
	reqs := p.mock.AgentRequests()
	if code != 0 || len(reqs) != 4 {
		p.dump(stderr)
		t.Fatalf("pi exit %d after %d model requests, want 0 after 4 (the run goes on past both refusals)", code, len(reqs))
	}
	risky := reqs[1].LastToolResult()
	if !strings.Contains(risky, "hook-loop") || !strings.Contains(strings.ToLower(risky), "force") {
		t.Errorf("the model did not get the risky-command reason as the tool result: %q", risky)
	}
	loopWrite := reqs[2].LastToolResult()
	if !strings.Contains(loopWrite, "hook-loop blocked a change to hook-loop.json") {
		t.Errorf("the model did not get the loop-file reason as the tool result: %q", loopWrite)
	}
	if got, _ := os.ReadFile(filepath.Join(p.dir, "hook-loop.json")); !bytes.Equal(got, p.loop) {
		t.Errorf("hook-loop.json was changed by the refused write: %q", got)
	}
	if len(p.events("tool_blocked")) != 2 {
		t.Errorf("want 2 tool_blocked records, got %d", len(p.events("tool_blocked")))
	}
	if strings.TrimSpace(stdout) != "ALL DONE" {
		t.Errorf("stdout %q, want the final answer", stdout)
	}
	t.Logf("model saw, after the risky command: %q", risky)
	t.Logf("model saw, after the write to hook-loop.json: %q", loopWrite)
}

// Scenario 2: a command exiting 0 advances an exit_code: 0 rule; one exiting 3
// (pi only says so in the trailing "Command exited with code 3") does not.
func TestPiExitCodes(t *testing.T) {
	t.Parallel()
	var p *piProject
	var afterExit3, afterExit0 []string
	p = newPiProject(t, []chat.Step{
		chat.ToolCall("bash", map[string]any{"command": "sh run-tests failing; exit 3"}),
		chat.Func(func(r *chat.Request) chat.Reply {
			afterExit3 = p.transitions()
			return chat.Reply{ToolCalls: []chat.Call{chat.NewCall("bash", map[string]any{"command": "sh run-tests passing"})}}
		}),
		chat.Func(func(r *chat.Request) chat.Reply {
			afterExit0 = p.transitions()
			return chat.Reply{Text: "ALL DONE"}
		}),
	})
	stdout, stderr, code := p.print("run the tests")
	reqs := p.mock.AgentRequests()
	if code != 0 || len(reqs) != 3 {
		p.dump(stderr)
		t.Fatalf("pi exit %d after %d requests, want 0 after 3", code, len(reqs))
	}
	if got := reqs[1].LastToolResult(); !strings.Contains(got, "Command exited with code 3") {
		t.Errorf("the first command did not exit 3 as scripted: %q", got)
	}
	if len(afterExit3) != 0 {
		t.Errorf("exit 3 advanced the loop: %v", afterExit3)
	}
	if want := []string{"building-tests_passed->verified"}; strings.Join(afterExit0, ",") != strings.Join(want, ",") {
		t.Errorf("after exit 0 transitions %v, want %v", afterExit0, want)
	}
	if strings.TrimSpace(stdout) != "ALL DONE" {
		t.Errorf("stdout %q", stdout)
	}
}

// piKeepWorkingSteps: a premature final answer, then the work, then the answer.
func piKeepWorkingSteps() []chat.Step {
	return []chat.Step{
		chat.Text("I am finished."),
		chat.ToolCall("bash", map[string]any{"command": "sh run-tests passing"}),
		chat.Text("ALL DONE"),
	}
}

func checkKeepWorking(t *testing.T, p *piProject, stderr string) {
	t.Helper()
	reqs := p.mock.AgentRequests()
	if len(reqs) != 3 {
		p.dump(stderr)
		t.Fatalf("%d model requests, want 3 (premature answer, follow-up with the work, final answer)", len(reqs))
	}
	if first := userTexts(reqs[0]); !containsAny(first, `hook-loop is gating this session with the loop \"pi_e2e\"`) && !containsAny(first, `hook-loop is gating this session with the loop "pi_e2e"`) {
		t.Errorf("the loop contract was not injected before the first request: %q", first)
	}
	follow := reqs[1].LastMessage()
	if follow.Role != "user" || !strings.Contains(follow.Content, "hook-loop: you cannot stop yet") || !strings.Contains(follow.Content, "run-tests") {
		t.Errorf("the second request does not end with the stop reason as a user follow-up: %s %q", follow.Role, follow.Content)
	}
	if refused := p.events(eventlog.TypeStopRefused); len(refused) != 1 {
		t.Errorf("want 1 refused stop, got %d", len(refused))
	}
	outcome := ""
	for _, e := range p.events(eventlog.TypeLoopOutcome) {
		pl, _ := e["payload"].(map[string]any)
		outcome, _ = pl["outcome"].(string)
	}
	if outcome != "completed" {
		p.dump(stderr)
		t.Errorf("loop outcome %q, want completed", outcome)
	}
	t.Logf("follow-up the model received: %q", follow.Content)
}

// Scenario 3: in -p mode a final answer while the loop is not terminal makes the
// model receive the stop reason as a follow-up in the same run; once terminal the
// run ends and prints the final answer.
func TestPiPrintModeKeepsWorkingUntilTerminal(t *testing.T) {
	t.Parallel()
	p := newPiProject(t, piKeepWorkingSteps())
	stdout, stderr, code := p.print("fix the bug")
	if code != 0 {
		p.dump(stderr)
		t.Fatalf("pi -p exit %d", code)
	}
	checkKeepWorking(t, p, stderr)
	if strings.TrimSpace(stdout) != "ALL DONE" {
		t.Errorf("stdout %q, want the final answer of the continued run", stdout)
	}
}

// Scenario 4: the same through --mode rpc, where the follow-up starts a second
// agent run from agent_end, and that run's own agent_end sends nothing more.
func TestPiRPCModeKeepsWorkingUntilTerminal(t *testing.T) {
	t.Parallel()
	p := newPiProject(t, piKeepWorkingSteps())
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := p.command(ctx, "--mode", "rpc")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdoutPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var agentEnds int
	var finals []string
	changed := make(chan struct{}, 64)
	go func() {
		sc := bufio.NewScanner(stdoutPipe)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var ev struct {
				Type    string `json:"type"`
				Message struct {
					Role       string `json:"role"`
					StopReason string `json:"stopReason"`
					Content    []struct {
						Type string `json:"type"`
						Text string `json:"text"`
					} `json:"content"`
				} `json:"message"`
			}
			if json.Unmarshal(sc.Bytes(), &ev) != nil {
				continue
			}
			mu.Lock()
			switch {
			case ev.Type == "agent_end":
				agentEnds++
			case ev.Type == "message_end" && ev.Message.Role == "assistant" && ev.Message.StopReason == "stop":
				for _, c := range ev.Message.Content {
					if c.Type == "text" {
						finals = append(finals, c.Text)
					}
				}
			}
			mu.Unlock()
			changed <- struct{}{}
		}
		_, _ = io.Copy(io.Discard, stdoutPipe)
	}()
	if _, err := io.WriteString(stdin, `{"id":"r1","type":"prompt","message":"fix the bug"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	count := func() int { mu.Lock(); defer mu.Unlock(); return agentEnds }
	deadline := time.After(90 * time.Second)
	for count() < 2 {
		select {
		case <-changed:
		case <-deadline:
			stdin.Close()
			p.dump(stderr.String())
			t.Fatalf("rpc: %d agent_end events within 90 s, want 2 (the refused run and the follow-up's run)", count())
		}
	}
	// Give a wrongly repeated follow-up time to reach the model before pi exits.
	time.Sleep(1500 * time.Millisecond)
	stdin.Close()
	if err := cmd.Wait(); err != nil && ctx.Err() != nil {
		t.Fatalf("pi --mode rpc did not exit after stdin closed: %v", err)
	}
	checkKeepWorking(t, p, stderr.String())
	mu.Lock()
	defer mu.Unlock()
	if agentEnds != 2 {
		t.Errorf("%d agent runs, want 2", agentEnds)
	}
	if len(finals) == 0 || finals[len(finals)-1] != "ALL DONE" {
		t.Errorf("final answers %q, want the last to be ALL DONE", finals)
	}
}
