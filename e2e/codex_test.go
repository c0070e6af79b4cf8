package e2e

// End-to-end tests of the Codex adapter: the real `codex exec` (npm
// @openai/codex@0.169.0) runs against the Go mock of the Responses API on
// 127.0.0.1, in a scratch git repo set up with `hook-loop codex install --write
// --trust` — no --dangerously-bypass-hook-trust — with CODEX_HOME isolated in a
// temp dir and the offline provider config of harness/codex/mock/README.md.
// Every scenario asserts on what the mock model received next.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	codexinstall "github.com/hook-loop/hook-loop/adapters/codex/install"
	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/eventlog/logline"
	"github.com/hook-loop/hook-loop/gallery"
	"github.com/hook-loop/hook-loop/project/userconfig"
	"github.com/hook-loop/hook-loop/testkit/mockmodel/responses"
	"github.com/tidwall/sjson"
)

// codexRunTimeout bounds one `codex exec`; a healthy run takes a few seconds.
const codexRunTimeout = 120 * time.Second

const planPatch = "*** Begin Patch\n*** Add File: PLAN.md\n+1. Add greet.txt; verify with `make test`.\n*** End Patch\n"

// codexProject is a scratch repo with hook-loop installed for Codex.
type codexProject struct {
	dir   string // the git repo (its path has a space)
	home  string // CODEX_HOME
	codex string
	mock  *responses.Server
}

// newCodexProject writes the loop (plan_execute, edited by edit when given), a
// Makefile whose `test` target passes (or fails with FAIL=1), points Codex at a
// fresh mock model, and installs hook-loop with the real command, with trust.
func newCodexProject(t *testing.T, opts responses.Options, edit func([]byte) []byte, installArgs ...string) *codexProject {
	t.Helper()
	codex := harnessBin(t, "codex")
	root := t.TempDir()
	p := &codexProject{dir: filepath.Join(root, "repo with space"), home: filepath.Join(root, "codex home"), codex: codex}
	for _, d := range []string{p.dir, p.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	git := exec.Command("git", "init", "-q", ".")
	git.Dir = p.dir
	if out, err := git.CombinedOutput(); err != nil {
		t.Skipf("git init failed (git is needed for a Codex project): %v %s", err, out)
	}
	data, err := gallery.Get("plan_execute")
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		data = edit(data)
	}
	cxWrite(t, filepath.Join(p.dir, "hook-loop.json"), data)
	cxWrite(t, filepath.Join(p.dir, "Makefile"), []byte("test:\n\t@test -z \"$(FAIL)\" || { echo 'FAIL: 1 test failed'; exit 1; }\n\t@echo 'ok: all tests passed'\n"))
	p.mock = responses.Start(t, opts)
	// gpt-5.5 is a slug of Codex's built-in catalog: only then does Codex offer
	// apply_patch (the mock ignores the name).
	cxWrite(t, filepath.Join(p.home, "config.toml"), []byte(fmt.Sprintf(`model = "gpt-5.5"
model_provider = "mock"
check_for_update_on_startup = false

[model_providers.mock]
name = "Local mock"
base_url = %q
env_key = "MOCK_API_KEY"
wire_api = "responses"
`, p.mock.URL)))
	args := append([]string{"codex", "install", "--write", "--trust", "--codex-home", p.home, "--codex-bin", codex}, installArgs...)
	out := p.hookLoop(t, args...)
	if !strings.Contains(out, "trust:") {
		t.Fatalf("install did not report trust:\n%s", out)
	}
	return p
}

func cxWrite(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// hookLoop runs the built hook-loop in the project.
func (p *codexProject) hookLoop(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(hookLoopBinary(t), args...)
	cmd.Dir = p.dir
	cmd.Env = append(os.Environ(), "CODEX_HOME="+p.home, "PATH="+filepath.Dir(p.codex)+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("hook-loop %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// codexRun is one finished `codex exec`.
type codexRun struct {
	stdout, stderr string
	exit           int
	reqs           []responses.Request
}

// exec runs `codex exec` once, with hooks trusted by install only.
func (p *codexProject) exec(t *testing.T, prompt string) *codexRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), codexRunTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.codex, "exec", "--skip-git-repo-check", "-s", "workspace-write", prompt)
	cmd.Dir = p.dir
	// HOME too: codex runs commands in a login shell, and the user's profile
	// (pyenv, nvm, ...) would slow every command down and leak into the run.
	cmd.Env = append(os.Environ(), "CODEX_HOME="+p.home, "HOME="+filepath.Dir(p.home), "MOCK_API_KEY=dummy", "NO_COLOR=1")
	cmd.Stdin = nil
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	r := &codexRun{stdout: so.String(), stderr: se.String(), reqs: p.mock.Requests()}
	if ctx.Err() != nil {
		t.Fatalf("codex exec did not finish within %v\nstderr:\n%s", codexRunTimeout, r.stderr)
	}
	if ee, ok := err.(*exec.ExitError); ok {
		r.exit = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.stderr, "hook: SessionStart") {
		t.Fatalf("no hook ran (are they trusted?)\nstderr:\n%s", r.stderr)
	}
	return r
}

func (r *codexRun) dump(t *testing.T) {
	t.Helper()
	t.Logf("codex exec exit %d\nstdout:\n%s\nstderr hook lines:\n%s", r.exit, r.stdout, hookLines(r.stderr))
	for i := range r.reqs {
		for _, m := range responses.NewMessages(r.reqs, i) {
			t.Logf("request %d received: %s", i, cxTrunc(m.String(), 400))
		}
	}
}

func hookLines(stderr string) string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "hook: ") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func cxTrunc(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// received returns what request i carried that request i-1 did not.
func (r *codexRun) received(i int) []responses.Message {
	if i >= len(r.reqs) {
		return nil
	}
	return responses.NewMessages(r.reqs, i)
}

// hookPrompts are the Stop-hook continuations (<hook_prompt …>R</hook_prompt>)
// the model received, in order.
func (r *codexRun) hookPrompts() []string {
	var out []string
	if len(r.reqs) == 0 {
		return nil
	}
	for _, m := range r.reqs[len(r.reqs)-1].Messages() {
		if m.Type == "message" && m.Role == "user" && strings.Contains(m.Text, "<hook_prompt") {
			out = append(out, m.Text)
		}
	}
	return out
}

func (p *codexProject) events(t *testing.T) []eventlog.Event {
	t.Helper()
	return logEvents(t, p.dir)
}

// logEvents reads the project's event log.
func logEvents(t *testing.T, dir string) []eventlog.Event {
	t.Helper()
	data, err := os.ReadFile(projectLog(dir))
	if err != nil {
		t.Fatal(err)
	}
	var out []eventlog.Event
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		e, err := logline.Parse([]byte(line))
		if err != nil {
			t.Fatalf("log line does not parse: %v: %s", err, line)
		}
		out = append(out, e)
	}
	return out
}

func cxTransitions(evs []eventlog.Event) []string {
	var out []string
	for _, e := range evs {
		if e.EventType == eventlog.TypeStateTransitioned {
			out = append(out, fmt.Sprintf("%v -%v-> %v", e.Payload["from"], e.Payload["event"], e.Payload["to"]))
		}
	}
	return out
}

func cxOfType(evs []eventlog.Event, typ string) []eventlog.Event {
	var out []eventlog.Event
	for _, e := range evs {
		if e.EventType == typ {
			out = append(out, e)
		}
	}
	return out
}

func cxEqual(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

// Scenario 1: the agent says it is done while the loop is in planning: the stop
// is refused, the model receives the DSL-derived reason, and the same turn
// continues until the loop is done.
func TestCodexEarlyStopRefusedWithLoopReason(t *testing.T) {
	t.Parallel()
	p := newCodexProject(t, responses.Options{Steps: []responses.Step{
		{Message: "I am done."},
		{Patch: planPatch},
		{Command: "make test"},
		{Message: "ALL STEPS PASS"},
	}}, nil)
	r := p.exec(t, "Add a greeting feature")
	r.dump(t)
	if r.exit != 0 {
		t.Fatalf("codex exec exit %d", r.exit)
	}
	if len(r.reqs) != 4 {
		t.Fatalf("model requests: %d, want 4", len(r.reqs))
	}
	// What the model received right after saying "I am done.": the refusal,
	// built from the DSL, as a Stop-hook continuation of the same turn.
	next := r.received(1)
	var prompt string
	for _, m := range next {
		if m.Role == "user" && strings.Contains(m.Text, "<hook_prompt") {
			prompt = m.Text
		}
	}
	if prompt == "" {
		t.Fatalf("request 1 has no <hook_prompt>: %v", next)
	}
	t.Logf("after \"I am done.\" the model received:\n%s", prompt)
	// The reason is the DSL's: the state, its instructions, and the rule that
	// leaves it (a write of PLAN.md), never a fixed sentence.
	for _, want := range []string{`state "planning"`, "Write the plan to PLAN.md", "plan_ready → executing", "apply_patch", "(^|/)PLAN\\.md$"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("the refusal lacks %q:\n%s", want, prompt)
		}
	}
	cxEqual(t, "transitions", cxTransitions(p.events(t)), []string{
		"backlog -kickoff-> planning", "planning -plan_ready-> executing",
		"executing -step_done-> verifying", "verifying -all_steps_pass-> done"})
	if got := len(cxOfType(p.events(t), eventlog.TypeStopRefused)); got != 1 {
		t.Errorf("refused stops: %d, want 1", got)
	}
}

// Scenario 2: a verification command that exits 3 does not advance an
// exit_code: 0 rule; the one that exits 0 does. The exit codes come from the
// session rollout, since Codex's PostToolUse payload has none.
func TestCodexExitCodeFromRollout(t *testing.T) {
	t.Parallel()
	p := newCodexProject(t, responses.Options{Steps: []responses.Step{
		{Patch: planPatch},
		{Command: "make test FAIL=1 || exit 3"},
		{Command: "make test"},
		{Message: "ALL STEPS PASS"},
	}}, nil)
	r := p.exec(t, "Add a greeting feature")
	r.dump(t)
	if r.exit != 0 {
		t.Fatalf("codex exec exit %d", r.exit)
	}
	// The model saw both results: the failing one first.
	var outs []string
	for _, m := range r.reqs[len(r.reqs)-1].Messages() {
		if m.Type == "function_call_output" {
			outs = append(outs, m.Text)
		}
	}
	if len(outs) != 2 || !strings.Contains(outs[0], "Process exited with code 3") || !strings.Contains(outs[1], "Process exited with code 0") {
		t.Fatalf("tool outputs the model received: %q", outs)
	}
	evs := p.events(t)
	// Each PostToolUse's recorded state: still executing after exit 3,
	// verifying after exit 0.
	var post []string
	for _, e := range cxOfType(evs, eventlog.TypeHookFired) {
		if e.Payload["hook_event_name"] == "PostToolUse" && e.Payload["tool_name"] == "Bash" {
			post = append(post, e.State)
		}
	}
	cxEqual(t, "state after each Bash PostToolUse", post, []string{"executing", "verifying"})
	ev := cxOfType(evs, eventlog.TypeEvidenceRegistered)
	if len(ev) != 1 || fmt.Sprint(ev[0].Payload["exit_code"]) != "0" || ev[0].Payload["command"] != "make test" {
		t.Errorf("evidence: %v", ev)
	}
	cxEqual(t, "transitions", cxTransitions(evs), []string{
		"backlog -kickoff-> planning", "planning -plan_ready-> executing",
		"executing -step_done-> verifying", "verifying -all_steps_pass-> done"})
}

// Scenario 3: once the loop is done the stop is allowed at once and codex exec
// exits 0; status shows the completed loop.
func TestCodexDoneAllowsStop(t *testing.T) {
	t.Parallel()
	p := newCodexProject(t, responses.Options{Steps: []responses.Step{
		{Patch: planPatch},
		{Command: "make test"},
		{Message: "ALL STEPS PASS"},
	}}, nil)
	r := p.exec(t, "Add a greeting feature")
	r.dump(t)
	if r.exit != 0 || strings.TrimSpace(r.stdout) != "ALL STEPS PASS" {
		t.Fatalf("codex exec exit %d stdout %q", r.exit, r.stdout)
	}
	if len(r.reqs) != 3 || len(r.hookPrompts()) != 0 {
		t.Fatalf("requests %d, hook prompts %q: the final stop must be allowed at once", len(r.reqs), r.hookPrompts())
	}
	if !strings.Contains(hookLines(r.stderr), "hook: Stop Completed") {
		t.Errorf("Stop hook did not complete:\n%s", hookLines(r.stderr))
	}
	evs := p.events(t)
	out := cxOfType(evs, eventlog.TypeLoopOutcome)
	if len(out) != 1 || out[0].Payload["outcome"] != "completed" {
		t.Errorf("outcome: %v", out)
	}
	st := p.hookLoop(t, "status")
	t.Logf("hook-loop status after scenario 3:\n%s", st)
	if !strings.Contains(st, "done") {
		t.Errorf("status does not show done:\n%s", st)
	}
}

// Scenario 4: a risky command and an edit of hook-loop.json are refused before
// they run, and the model reads why.
func TestCodexRiskyCommandAndLoopFileRefused(t *testing.T) {
	t.Parallel()
	p := newCodexProject(t, responses.Options{Steps: []responses.Step{
		{Patch: planPatch},
		{Command: "cd src 2>/dev/null; sudo rm -rf .."},
		{Patch: "*** Begin Patch\n*** Delete File: hook-loop.json\n*** End Patch\n"},
		{Command: "make test"},
		{Message: "ALL STEPS PASS"},
	}}, nil)
	r := p.exec(t, "Add a greeting feature")
	r.dump(t)
	if r.exit != 0 {
		t.Fatalf("codex exec exit %d", r.exit)
	}
	risky := r.received(2)
	var riskyOut string
	for _, m := range risky {
		if m.Type == "function_call_output" {
			riskyOut = m.Text
		}
	}
	if !strings.HasPrefix(riskyOut, "Command blocked by PreToolUse hook: ") || !strings.Contains(riskyOut, "rm") {
		t.Errorf("the model received for the risky command: %q", riskyOut)
	}
	var patchOut string
	for _, m := range r.received(3) {
		if m.Type == "custom_tool_call_output" {
			patchOut = m.Text
		}
	}
	t.Logf("the model received for the risky command:\n%s\nand for the loop-file edit:\n%s", riskyOut, patchOut)
	if !strings.HasPrefix(patchOut, "Command blocked by PreToolUse hook: ") || !strings.Contains(patchOut, "hook-loop.json") {
		t.Errorf("the model received for the loop-file edit: %q", patchOut)
	}
	if _, err := os.Stat(filepath.Join(p.dir, "hook-loop.json")); err != nil {
		t.Errorf("hook-loop.json is gone: %v", err)
	}
	if got := len(cxOfType(p.events(t), "tool_blocked")); got != 2 {
		t.Errorf("tool_blocked records: %d, want 2", got)
	}
}

// Scenario 5: a loop that can never finish is let go after max_stop_blocks
// refused stops, recorded as capped (never completed), with a message for the
// person.
func TestCodexNeverFinishingLoopIsCapped(t *testing.T) {
	t.Parallel()
	p := newCodexProject(t, responses.Options{Final: "I am done."}, func(b []byte) []byte {
		b, _ = sjson.SetBytes(b, "loop.max_stop_blocks", 3)
		return b
	})
	r := p.exec(t, "Add a greeting feature")
	r.dump(t)
	if r.exit != 0 {
		t.Fatalf("codex exec exit %d", r.exit)
	}
	if len(r.reqs) != 4 || len(r.hookPrompts()) != 3 {
		t.Fatalf("requests %d, hook prompts %d: want 4 and 3", len(r.reqs), len(r.hookPrompts()))
	}
	evs := p.events(t)
	out := cxOfType(evs, eventlog.TypeLoopOutcome)
	if len(out) != 1 || out[0].Payload["outcome"] != "capped" || out[0].Payload["final_state"] != "planning" {
		t.Errorf("outcome: %v", out)
	}
	if got := len(cxOfType(evs, eventlog.TypeStopRefused)); got != 3 {
		t.Errorf("refused stops: %d, want 3", got)
	}
}

// Scenario 6: hook processes fire concurrently on one session — Codex runs
// every matching handler at once — and nothing is lost: 16 installed hook
// commands started together with a real PostToolUse payload, then a real Codex
// run with four copies of hook-loop's PreToolUse handler.
func TestCodexConcurrentHooksLoseNothing(t *testing.T) {
	t.Parallel()
	p := newCodexProject(t, responses.Options{Steps: []responses.Step{{Command: "echo hi"}}}, func(b []byte) []byte {
		b, _ = sjson.SetBytes(b, "loop.max_stop_blocks", 1)
		return b
	})

	// The exact command Codex would run, from the installed hooks.json.
	hooks, err := os.ReadFile(filepath.Join(p.dir, ".codex", "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(hooks, &doc); err != nil {
		t.Fatal(err)
	}
	command := doc.Hooks["PostToolUse"][0].Hooks[0].Command
	if !userconfig.Present("", os.Getenv) && !strings.Contains(command, "/hook-loop-hook' codex-hook ") {
		// With no user config and no database, the lean binary beside
		// hook-loop runs every event.
		t.Errorf("hook command %s: want the lean hook binary", command)
	}
	payload := fmt.Sprintf(`{"session_id":"s16","turn_id":"t1","transcript_path":null,"cwd":%q,"hook_event_name":"PostToolUse","model":"gpt-5.5","permission_mode":"bypassPermissions","tool_name":"Bash","tool_input":{"command":"echo hi"},"tool_response":"hi\n","tool_use_id":"call_x"}`, p.dir)
	const n = 16
	var wg sync.WaitGroup
	errs := make(chan error, n)
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			cmd := exec.Command("/bin/bash", "-c", command)
			cmd.Dir = filepath.Join(p.dir)
			cmd.Stdin = strings.NewReader(payload)
			out, err := cmd.CombinedOutput()
			if err != nil || len(out) != 0 {
				errs <- fmt.Errorf("hook: %v %q", err, out)
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	evs := p.events(t)
	fired := 0
	for _, e := range cxOfType(evs, eventlog.TypeHookFired) {
		if e.SessionID == "s16" {
			fired++
		}
	}
	if fired != n {
		t.Errorf("hook_fired events for the session: %d, want %d", fired, n)
	}
	started := 0
	for _, e := range cxOfType(evs, eventlog.TypeLoopStarted) {
		if e.SessionID == "s16" {
			started++
		}
	}
	if started != 1 {
		t.Errorf("loop_started for the session: %d, want exactly 1", started)
	}

	// Codex itself: four more copies of hook-loop's PreToolUse handler, each
	// trusted; Codex starts all five at once for the one tool call, and each
	// one's decision is recorded.
	for i := 0; i < 4; i++ {
		cmd := doc.Hooks["PreToolUse"][0].Hooks[0].Command + strings.Repeat(" ", i+1)
		g := fmt.Sprintf(`{"hooks":[{"type":"command","command":%q,"timeout":30}]}`, cmd)
		if hooks, err = sjson.SetRawBytes(hooks, "hooks.PreToolUse.-1", []byte(g)); err != nil {
			t.Fatal(err)
		}
	}
	hooksPath := filepath.Join(p.dir, ".codex", "hooks.json")
	cxWrite(t, hooksPath, hooks)
	if _, err := codexinstall.TrustCodex(context.Background(), p.codex, p.home, p.dir, hooksPath, true); err != nil {
		t.Fatal(err)
	}
	r := p.exec(t, "run echo hi")
	r.dump(t)
	var pre int
	for _, e := range cxOfType(p.events(t), eventlog.TypeHookFired) {
		if e.Payload["hook_event_name"] == "PreToolUse" && e.SessionID != "s16" {
			pre++
		}
	}
	if pre != 5 {
		t.Errorf("PreToolUse decisions recorded from the Codex run: %d, want 5 (one per handler)", pre)
	}
	if got := strings.Count(hookLines(r.stderr), "hook: PreToolUse Completed"); got != 5 {
		t.Errorf("codex reports %d completed PreToolUse hooks, want 5:\n%s", got, hookLines(r.stderr))
	}
}

// TestCodexRecordDemo records the session `hook-loop demo` replays. It runs
// only when asked (HOOK_LOOP_RECORD_DEMO=1): a real Codex session through the
// embedded plan_execute loop — an early stop refused, the plan written, a risky
// command refused, a failing then a passing verification, the final PASS — with
// the hooks installed with --record. The temp paths are normalised.
func TestCodexRecordDemo(t *testing.T) {
	if os.Getenv("HOOK_LOOP_RECORD_DEMO") == "" {
		t.Skip("records internal/demo/testdata/codex-plan_execute.jsonl: set HOOK_LOOP_RECORD_DEMO=1 to re-record")
	}
	p := newCodexProject(t, responses.Options{Steps: []responses.Step{
		{Message: "I am done."},
		{Patch: planPatch},
		{Command: "git push --force origin main"},
		{Command: "make test FAIL=1"},
		{Patch: "*** Begin Patch\n*** Add File: greet.txt\n+hello\n*** End Patch\n"},
		{Command: "make test"},
		{Message: "ALL STEPS PASS"},
	}}, nil, "--record")
	r := p.exec(t, "Add a greeting feature")
	r.dump(t)
	if r.exit != 0 {
		t.Fatalf("codex exec exit %d", r.exit)
	}
	trace, err := os.ReadFile(filepath.Join(filepath.Dir(projectLog(p.dir)), "trace.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	norm := func(s, from, to string) string {
		j, _ := json.Marshal(from)
		k, _ := json.Marshal(to)
		return strings.ReplaceAll(s, string(j[1:len(j)-1]), string(k[1:len(k)-1]))
	}
	out := norm(string(trace), p.dir, "/work/demo-project")
	out = norm(out, p.home, "/work/codex-home")
	if strings.Contains(out, os.TempDir()) {
		t.Fatalf("trace still names a temp path:\n%s", out)
	}
	dest := filepath.Join(repoRoot(), "internal", "demo", "testdata", "codex-plan_execute.jsonl")
	cxWrite(t, dest, []byte(out))
	t.Logf("wrote %s (%d events)", dest, strings.Count(out, "\n"))
}
