package e2e

// End-to-end tests of the Claude Code adapter: the real `claude` binary (npm
// @anthropic-ai/claude-code@2.1.328) runs `claude -p` against the Go mock of the
// Anthropic Messages API on 127.0.0.1, in a project set up by
// `hook-loop claude install --write`, with the environment from
// harness/claude/mock/README.md so that Claude Code makes no other traffic.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/sjson"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/gallery"
	"github.com/hook-loop/hook-loop/testkit/mockmodel/messages"
)

// claudeLoop is the loop every scenario runs: the embedded gallery plan_execute,
// the same file the Codex suite drives to done.
const claudeLoop = "plan_execute"

// claudeProject is a scratch project with hook-loop installed for Claude Code.
type claudeProject struct {
	dir  string // the project
	home string // HOME for claude: its config and state stay here
}

// newClaudeProject writes the loop (edited by edit, when given), a Makefile
// whose `test` target passes (or fails with FAIL=1), and installs hook-loop
// with the real command.
func newClaudeProject(t *testing.T, edit func(loop []byte) []byte) *claudeProject {
	t.Helper()
	root := t.TempDir()
	p := &claudeProject{dir: filepath.Join(root, "project with space"), home: filepath.Join(root, "home")}
	for _, d := range []string{p.dir, p.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	data, err := gallery.Get(claudeLoop)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		data = edit(data)
	}
	writeFile(t, filepath.Join(p.dir, "hook-loop.json"), data)
	writeFile(t, filepath.Join(p.dir, "Makefile"), []byte("test:\n\t@test -z \"$(FAIL)\" || { echo 'FAIL: 1 test failed'; exit 1; }\n\t@echo 'ok: all tests passed'\n"))

	cmd := exec.Command(hookLoopBinary(t), "claude", "install", "--write")
	cmd.Dir = p.dir
	cmd.Env = append(os.Environ(), "HOME="+p.home)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hook-loop claude install --write: %v\n%s", err, out)
	}
	return p
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// claudeRun is one finished `claude -p`.
type claudeRun struct {
	mock   *messages.Server
	stdout string
	stderr string
	exit   int
	result map[string]any // the -p JSON result
}

// run starts the mock with script and runs claude -p prompt in the project.
func (p *claudeProject) run(t *testing.T, script messages.Script, prompt string, env ...string) *claudeRun {
	t.Helper()
	bin := harnessBin(t, "claude")
	mock, err := messages.Start(script)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mock.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	debug := filepath.Join(t.TempDir(), "debug.log")
	cmd := exec.CommandContext(ctx, bin, "-p", prompt, "--output-format", "json",
		"--allowedTools", "Bash Write", "--debug-file", debug)
	cmd.Dir = p.dir
	cmd.Env = append(mock.Env(p.home), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	r := &claudeRun{mock: mock, stdout: stdout.String(), stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.exit = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run claude: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatalf("claude -p did not finish in time\nstderr: %s\nmock requests: %d", r.stderr, len(mock.Requests()))
	}
	if err := json.Unmarshal(stdout.Bytes(), &r.result); err != nil {
		t.Fatalf("claude -p output is not JSON: %v\nstdout: %s\nstderr: %s", err, r.stdout, r.stderr)
	}
	for _, req := range mock.Requests() {
		if req.Kind == "other" {
			t.Errorf("claude sent an unexpected request to the mock: %s %s", req.Method, req.Path)
		}
	}
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(debug)
			var hookLines []string
			for _, l := range strings.Split(string(b), "\n") {
				if strings.Contains(l, "hook") || strings.Contains(l, "Hook") {
					hookLines = append(hookLines, l)
				}
			}
			t.Logf("claude stdout: %s\nstderr: %s\ndebug (hook lines):\n%s", r.stdout, r.stderr, strings.Join(hookLines, "\n"))
			for i, req := range mock.MainRequests() {
				t.Logf("main request %d got %+v; new messages:\n  %s", i+1, req.Step, strings.Join(messages.Texts(req.AfterLastAssistant()), "\n  "))
			}
		}
	})
	return r
}

// events reads the project's event log.
func (p *claudeProject) events(t *testing.T) []eventlog.Event {
	t.Helper()
	data, err := os.ReadFile(projectLog(p.dir))
	if err != nil {
		t.Fatal(err)
	}
	var out []eventlog.Event
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e eventlog.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("log line is not JSON: %v: %s", err, line)
		}
		out = append(out, e)
	}
	return out
}

// transitions lists the applied transitions as "from -event-> to".
func transitions(evs []eventlog.Event) []string {
	var out []string
	for _, e := range evs {
		if e.EventType == eventlog.TypeStateTransitioned {
			out = append(out, e.Payload["from"].(string)+" -"+e.Payload["event"].(string)+"-> "+e.Payload["to"].(string))
		}
	}
	return out
}

func outcomes(evs []eventlog.Event) []map[string]any {
	var out []map[string]any
	for _, e := range evs {
		if e.EventType == eventlog.TypeLoopOutcome {
			out = append(out, e.Payload)
		}
	}
	return out
}

// status runs `hook-loop status` in the project.
func (p *claudeProject) status(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(hookLoopBinary(t), "status")
	cmd.Dir = p.dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("hook-loop status: %v\n%s", err, out)
	}
	return string(out)
}

// feedback returns the Stop-hook feedback texts a request carried to the model.
func feedback(r messages.Request) []string {
	var out []string
	for _, m := range r.AfterLastAssistant() {
		for _, b := range m.Content {
			if m.Role == "user" && b.Type == "text" && strings.HasPrefix(b.Text, "Stop hook feedback:\n") {
				out = append(out, strings.TrimPrefix(b.Text, "Stop hook feedback:\n"))
			}
		}
	}
	return out
}

// toolResults returns the tool results a request carried to the model.
func toolResults(r messages.Request) []messages.Block {
	var out []messages.Block
	for _, m := range r.AfterLastAssistant() {
		for _, b := range m.Content {
			if b.Type == "tool_result" {
				out = append(out, b)
			}
		}
	}
	return out
}

var writePlan = messages.Step{Tool: "Write", Input: map[string]any{
	"file_path": "PLAN.md", "content": "1. make the tests pass: verify with `make test`\n"}}

// Scenario 1: an early stop is refused with the reason built from the DSL, the
// run continues, and the stop in the terminal state is allowed.
func TestClaudeEarlyStopRefusedThenDone(t *testing.T) {
	t.Parallel()
	p := newClaudeProject(t, nil)
	r := p.run(t, messages.Script{Steps: []messages.Step{
		messages.Text("I am done."),
		writePlan,
		messages.Bash("make test"),
		messages.Text("ALL STEPS PASS"),
	}}, "Add a greeting feature")

	if r.exit != 0 || r.result["result"] != "ALL STEPS PASS" {
		t.Fatalf("claude exit %d, result %v; want 0 and the final answer", r.exit, r.result["result"])
	}
	main := r.mock.MainRequests()
	if len(main) != 4 {
		t.Fatalf("model got %d main requests, want 4 (early stop, plan, test, final)", len(main))
	}
	// The loop's contract reached the model with the first request, as the
	// SessionStart hook's additional context.
	if first := strings.Join(messages.Texts(main[0].Messages()), "\n"); !strings.Contains(first, "SessionStart hook additional context: hook-loop is gating this session with the loop \"plan_execute\"") {
		t.Errorf("the first request lacks the SessionStart contract:\n%s", first)
	}
	t.Logf("after the early stop, the model received:\n  %s", strings.Join(messages.Texts(main[1].AfterLastAssistant()), "\n  "))
	fb := feedback(main[1])
	if len(fb) != 1 {
		t.Fatalf("request 2 carries %d Stop-hook feedback messages, want 1: %q", len(fb), messages.Texts(main[1].AfterLastAssistant()))
	}
	for _, want := range []string{`"plan_execute"`, `"planning"`, "PLAN.md", "executing"} {
		if !strings.Contains(fb[0], want) {
			t.Errorf("stop reason lacks %q (it must come from the DSL):\n%s", want, fb[0])
		}
	}
	for i, req := range main[2:] {
		if f := feedback(req); len(f) != 0 {
			t.Errorf("request %d carries unexpected Stop-hook feedback %q", i+3, f)
		}
	}
	evs := p.events(t)
	got := strings.Join(transitions(evs), ", ")
	want := "backlog -kickoff-> planning, planning -plan_ready-> executing, executing -step_done-> verifying, verifying -all_steps_pass-> done"
	if got != want {
		t.Errorf("transitions = %s\nwant %s", got, want)
	}
	oc := outcomes(evs)
	if len(oc) != 1 || oc[0]["outcome"] != "completed" || oc[0]["forced_by_harness"] != nil {
		t.Errorf("outcomes = %v, want one completed, not forced", oc)
	}
	if st := p.status(t); !strings.Contains(st, "done") || !strings.Contains(st, "completed") {
		t.Errorf("status does not show the completed loop:\n%s", st)
	}
}

// Scenario 2: a failing verification (PostToolUseFailure, exit code 2 from make)
// does not advance the exit_code: 0 rule; the passing one does.
func TestClaudeFailingCommandDoesNotAdvance(t *testing.T) {
	t.Parallel()
	p := newClaudeProject(t, nil)
	r := p.run(t, messages.Script{Steps: []messages.Step{
		writePlan,
		messages.Bash("make test FAIL=1"),
		messages.Bash("make test"),
		messages.Text("ALL STEPS PASS"),
	}}, "Add a greeting feature")

	if r.exit != 0 {
		t.Fatalf("claude exit %d", r.exit)
	}
	main := r.mock.MainRequests()
	if len(main) != 4 {
		t.Fatalf("model got %d main requests, want 4", len(main))
	}
	tr := toolResults(main[2])
	if len(tr) != 1 || !tr[0].IsError || !strings.HasPrefix(tr[0].Text, "Exit code 2") {
		t.Fatalf("the failing command's result = %+v, want an error starting with Exit code 2", tr)
	}
	evs := p.events(t)
	// Claude fires PostToolUseFailure for the failing call and PostToolUse only
	// for the passing one: that is what makes the exit code of a PostToolUse 0.
	var failState, passState string
	var fails, passes int
	for _, e := range evs {
		if e.EventType != eventlog.TypeHookFired {
			continue
		}
		switch e.Payload["native_event"] {
		case "PostToolUseFailure":
			failState = e.State
			fails++
		case "PostToolUse":
			if e.Payload["tool_name"] == "Bash" {
				passState = e.State
				passes++
			}
		}
	}
	if fails != 1 || passes != 1 {
		t.Errorf("Bash hooks: %d PostToolUseFailure and %d PostToolUse, want 1 and 1", fails, passes)
	}
	if failState != "executing" {
		t.Errorf("after the failing make test the loop is in %q, want executing", failState)
	}
	if passState != "verifying" {
		t.Errorf("after the passing make test the loop is in %q, want verifying", passState)
	}
	got := strings.Join(transitions(evs), ", ")
	want := "backlog -kickoff-> planning, planning -plan_ready-> executing, executing -step_done-> verifying, verifying -all_steps_pass-> done"
	if got != want {
		t.Errorf("transitions = %s\nwant %s", got, want)
	}
	var evidence int
	for _, e := range evs {
		if e.EventType == eventlog.TypeEvidenceRegistered {
			evidence++
			if ec, _ := e.Payload["exit_code"].(float64); ec != 0 {
				t.Errorf("evidence from a command with exit code %v", e.Payload["exit_code"])
			}
			// The loop's rule says "actor": "codex" (the prototype's word for
			// the agent): under Claude Code the evidence is Claude's.
			if e.Actor != "claude" {
				t.Errorf("evidence actor %q, want claude", e.Actor)
			}
		}
	}
	if evidence != 1 {
		t.Errorf("%d evidence events, want 1 (the passing command only)", evidence)
	}
}

// Scenario 3: a risky command is denied before it runs and the model reads why.
func TestClaudeRiskyCommandDenied(t *testing.T) {
	t.Parallel()
	p := newClaudeProject(t, nil)
	victim := filepath.Join(p.dir, "build")
	if err := os.MkdirAll(victim, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(victim, "keep.txt"), []byte("keep"))
	r := p.run(t, messages.Script{Steps: []messages.Step{
		writePlan,
		messages.Bash("rm -rf build"),
		messages.Bash("make test"),
		messages.Text("ALL STEPS PASS"),
	}}, "Add a greeting feature")

	if r.exit != 0 {
		t.Fatalf("claude exit %d", r.exit)
	}
	if _, err := os.Stat(filepath.Join(victim, "keep.txt")); err != nil {
		t.Fatalf("the denied command ran: %v", err)
	}
	main := r.mock.MainRequests()
	if len(main) != 4 {
		t.Fatalf("model got %d main requests, want 4", len(main))
	}
	t.Logf("after the risky command, the model received:\n  %s", strings.Join(messages.Texts(main[2].AfterLastAssistant()), "\n  "))
	tr := toolResults(main[2])
	if len(tr) != 1 || !tr[0].IsError || !strings.HasPrefix(tr[0].Text, "PreToolUse:Bash hook error: ") {
		t.Fatalf("the model got %+v for the risky command, want the hook's denial", tr)
	}
	if !strings.Contains(tr[0].Text, "rm -r") {
		t.Errorf("the denial does not say why: %q", tr[0].Text)
	}
	if denials, _ := r.result["permission_denials"].([]any); len(denials) != 1 {
		t.Errorf("claude reports %d permission denials, want 1", len(denials))
	}
	var blocked int
	for _, e := range p.events(t) {
		if e.EventType == "tool_blocked" {
			blocked++
		}
	}
	if blocked != 1 {
		t.Errorf("%d tool_blocked events, want 1", blocked)
	}
}

// Scenario 4: when the model calls a tool between refused stops, Claude Code's
// own cap never ends the loop; hook-loop's max_stop_blocks does, and records
// the outcome capped (not completed, not forced).
func TestClaudeCapHoldsWithToolsBetweenStops(t *testing.T) {
	t.Parallel()
	const maxBlocks = 3
	p := newClaudeProject(t, func(b []byte) []byte {
		out, err := sjson.SetBytes(b, "loop.max_stop_blocks", maxBlocks)
		if err != nil {
			t.Fatal(err)
		}
		return out
	})
	r := p.run(t, messages.Script{Next: func(req *messages.Request, n int) messages.Step {
		if len(feedback(*req)) > 0 {
			return messages.Bash("echo still working")
		}
		return messages.Text("done")
	}}, "Add a greeting feature",
		// Claude's own cap, lowered: with no tool between refusals it would end
		// the turn after 2; the tool calls keep it from ever doing so.
		"CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=2")

	if r.exit != 0 || r.result["result"] != "done" {
		t.Fatalf("claude exit %d result %v", r.exit, r.result["result"])
	}
	var fb int
	for _, req := range r.mock.MainRequests() {
		fb += len(feedback(req))
	}
	if fb != maxBlocks {
		t.Errorf("the model got %d Stop-hook feedback messages, want %d", fb, maxBlocks)
	}
	// Every refusal was followed by a tool call and the final stop was allowed.
	if n := len(r.mock.MainRequests()); n != 2*maxBlocks+1 {
		t.Errorf("%d main requests, want %d", n, 2*maxBlocks+1)
	}
	oc := outcomes(p.events(t))
	if len(oc) != 1 || oc[0]["outcome"] != "capped" || oc[0]["forced_by_harness"] != nil {
		t.Errorf("outcomes = %v, want one capped, not forced by the harness", oc)
	}
	st := p.status(t)
	if !strings.Contains(st, "capped") || strings.Contains(st, "forced") {
		t.Errorf("status must show capped by the loop:\n%s", st)
	}
}

// Claude Code's own cap: with no tool use between refusals it ends the turn
// itself (here after 2 refusals). hook-loop must record that the harness forced
// the stop, and status must say so: with a loop cap above Claude's, and with
// max_stop_blocks: 0 (never capped by hook-loop, still by Claude Code).
func TestClaudeHarnessForcedStop(t *testing.T) {
	t.Parallel()
	for _, maxBlocks := range []int{20, 0} {
		t.Run(fmt.Sprintf("max_stop_blocks=%d", maxBlocks), func(t *testing.T) {
			t.Parallel()
			claudeHarnessForcedStop(t, maxBlocks)
		})
	}
}

func claudeHarnessForcedStop(t *testing.T, maxBlocks int) {
	p := newClaudeProject(t, func(b []byte) []byte {
		out, err := sjson.SetBytes(b, "loop.max_stop_blocks", maxBlocks)
		if err != nil {
			t.Fatal(err)
		}
		return out
	})
	r := p.run(t, messages.Script{}, "Add a greeting feature", "CLAUDE_CODE_STOP_HOOK_BLOCK_CAP=2",
		// SessionEnd hooks get 1.5 s by default; on a loaded CI machine a cold
		// process start can come close, and this test is about what SessionEnd records.
		"CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS=15000")
	if r.exit != 0 {
		t.Fatalf("claude exit %d", r.exit)
	}
	var fb int
	for _, req := range r.mock.MainRequests() {
		fb += len(feedback(req))
	}
	if fb != 2 {
		t.Errorf("the model got %d Stop-hook feedback messages, want 2 (Claude's cap)", fb)
	}
	evs := p.events(t)
	var refused int
	for _, e := range evs {
		if e.EventType == eventlog.TypeStopRefused {
			refused++
		}
	}
	if refused != 3 {
		t.Errorf("%d refused stops, want 3 (Claude overrides the third)", refused)
	}
	oc := outcomes(evs)
	if len(oc) != 1 || oc[0]["forced_by_harness"] != true {
		t.Fatalf("outcomes = %v, want one forced by the harness", oc)
	}
	if st := p.status(t); !strings.Contains(st, "forced by the harness") {
		t.Errorf("status does not tell the harness forced the stop:\n%s", st)
	}
}
