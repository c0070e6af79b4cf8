package e2e

// The trace recorder: for every gallery loop and every harness whose events the
// loop uses, it installs the loop with `--profile NAME --record --write` in a
// scratch repo, scripts the mock model through the loop's path with real
// commands that really run there (make test, git commit, ./run.sh, ...), runs
// the REAL harness, and keeps the hooks' .hook-loop/trace.jsonl as
// gallery/traces/<loop>/<harness>-<complete|early-stop>.jsonl, with the scratch
// paths rewritten to placeholders so that `hook-loop replay --rebase` and
// internal/replay's gallery test can feed them through the loop again.
//
// It runs only when asked, one loop at a time on a loaded machine:
//
//	HOOK_LOOP_RECORD_TRACES=1 go test ./e2e -run 'TestRecordTraces/plan_execute/' -v
//	go test ./e2e -run 'TestRecordTraces/approval_gate/claude' -record-traces

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/gallery"
	"github.com/hook-loop/hook-loop/testkit/mockmodel/chat"
	"github.com/hook-loop/hook-loop/testkit/mockmodel/messages"
	"github.com/hook-loop/hook-loop/testkit/mockmodel/responses"
)

var recordTraces = flag.Bool("record-traces", false, "record gallery/traces from the real harnesses (also HOOK_LOOP_RECORD_TRACES=1)")

// Placeholders for the scratch paths in a recorded trace. Replay rebases
// TraceProject onto its own root.
const (
	TraceProject = "/work/trace-project"
	TraceHome    = "/work/trace-home"
)

// workerMarker starts every subagent's task, so the mock can tell a subagent's
// requests from the main agent's.
const workerMarker = "WORKER TASK:"

// tAct is one harness-neutral model action.
type tAct struct {
	bash       string // a shell command
	path, body string // write a new file
	say        string // a final message: ends the model's turn (the Stop hook decides)
	spawn      string // start a subagent with this task; it answers sub
	sub        string
}

func tBash(c string) tAct          { return tAct{bash: c} }
func tWrite(p, b string) tAct      { return tAct{path: p, body: b} }
func tSay(s string) tAct           { return tAct{say: s} }
func tSpawn(task, ans string) tAct { return tAct{spawn: workerMarker + " " + task, sub: ans} }

// tTurn is one prompt (the first starts the session, later ones resume it, as
// a person answering) and what the model does until its final message is
// allowed.
type tTurn struct {
	prompt string
	acts   []tAct
}

type traceScenario struct {
	turns []tTurn
	// needs lists harness capabilities: "subagent" (a tool that starts one),
	// "subagent_stop" (hook-loop sees the subagent's final message).
	needs []string
	// install are more arguments for the install command (e.g. --mode warn).
	install []string
	// between, when set, runs before each turn after the first (a person at
	// the terminal while the agent waits), in the project with the harness's
	// environment.
	between func(t *testing.T, dir string, env []string)
	// seen, when set, is handed the recorder's stepper (what the model received).
	seen func(*stepper)
}

const earlyStop = "I am done."

// scenarioFor is each gallery loop's path to done for a kind of trace:
// "complete"; "early-stop" puts a premature "I am done." first, which the gate
// must refuse before the run goes on to done; "complete-subagent" takes the
// verdict from a real evaluator subagent instead of the person (loops whose
// evaluator may be a subagent; none otherwise).
func scenarioFor(loopName, kind string) traceScenario {
	early := kind == "early-stop"
	var s traceScenario
	if kind == "complete-subagent" {
		return subagentScenario(loopName)
	}
	first := func(acts ...tAct) []tAct {
		if early {
			return append([]tAct{tSay(earlyStop)}, acts...)
		}
		return acts
	}
	test := tBash("make test")
	switch loopName {
	case "software_delivery":
		s.turns = []tTurn{
			{"Add a greeting feature", first(tWrite("greet.txt", "hello\n"), test, tSay("greet.txt added; make test passes. READY FOR REVIEW"))},
			{"VERDICT: PASS - the evidence covers the feature", []tAct{tSay("Thanks, the loop is done.")}},
		}
	case "plan_execute":
		s.turns = []tTurn{
			{"Add a greeting feature", first(tWrite("PLAN.md", "1. Add greet.txt\n2. Verify with make test\n"), tWrite("greet.txt", "hello\n"), test, tSay("ALL STEPS PASS"))},
		}
	case "builder_evaluator":
		s.turns = []tTurn{
			{"Add a greeting feature", first(tWrite("greet.txt", "hello\n"), test, tSay("make test passes. READY FOR REVIEW"))},
			{"NEEDS_WORK: greet.txt should end with an exclamation mark", []tAct{tWrite("greet2.txt", "hello!\n"), test, test, tSay("Reworked; make test passes. READY FOR REVIEW")}},
			{"PASS", []tAct{tSay("Thanks, done.")}},
		}
	case "rework_loop":
		s.turns = []tTurn{
			{"Build the greeting feature", first(tWrite("greet.txt", "hello\n"), test, tSay("Built; make test passes. Please evaluate: PASS or NEEDS_WORK."))},
			{"NEEDS_WORK: add a farewell too", []tAct{tWrite("bye.txt", "bye\n"), test, test, tSay("Reworked; make test passes. Please evaluate again.")}},
			{"PASS", []tAct{tSay("Thanks, done.")}},
		}
	case "approval_gate":
		s.turns = []tTurn{
			{"Draft a proposal for the greeting feature", first(tWrite("PROPOSAL.md", "# Proposal\nAdd greet.txt.\n"), tSay("The draft is in PROPOSAL.md. APPROVAL REQUESTED"))},
			{"approved", []tAct{tBash("git add -A && git commit -q -m 'proposal approved'"), tSay("Committed the approved proposal.")}},
		}
	case "safety_guardrail":
		s.turns = []tTurn{
			{"Clean the build output and list the files", first(tBash("ls"), tBash("rm -rf build"), tBash("echo kept > kept.txt"), tSay("TASK COMPLETE"))},
		}
	case "agent_handoff":
		s.turns = []tTurn{
			{"Pick up where the last session left off", first(tBash("cat HANDOFF.md"), tWrite("greet.txt", "hello\n"), test,
				tBash("git add -A && git commit -q -m 'add greet.txt'"), tBash("echo '- next: add a farewell' >> HANDOFF.md"), tSay("HANDOFF DONE"))},
		}
	case "multi_agent_fanout":
		s.needs = []string{"subagent"}
		s.turns = []tTurn{
			{"Split the greeting feature between workers", first(tSpawn("write greet.txt", "worker finished: greet.txt written"),
				tSay("ALL WORKERS DONE"), tWrite("greet.txt", "hello\n"), test, tSay("Merged; make test passes. READY FOR REVIEW"))},
			{"VERDICT: PASS", []tAct{tSay("Thanks, done.")}},
		}
	case "autoresearch_experiment":
		s.turns = []tTurn{
			{"Experiment: does a larger batch improve the score?", first(tBash("./run.sh"), tBash("./run.sh >> results.tsv"), test,
				tSay("KEEP: the metric improved"), tBash("git add -A && git commit -q -m 'keep: larger batch'"), tSay("Committed the kept experiment."))},
		}
	}
	return s
}

// subagentScenario: the evaluator is a fresh-context subagent whose final
// message carries the verdict (SubagentStop), all in one session.
func subagentScenario(loopName string) traceScenario {
	switch loopName {
	case "rework_loop":
		return traceScenario{needs: []string{"subagent", "subagent_stop"}, turns: []tTurn{
			{"Build the greeting feature and have it evaluated", []tAct{tWrite("greet.txt", "hello\n"), tBash("make test"),
				tSpawn("evaluate greet.txt against the task; answer PASS or NEEDS_WORK on the first line", "PASS\ngreet.txt exists and make test passes."),
				tSay("The evaluator passed the build.")}},
		}}
	case "builder_evaluator", "software_delivery":
		verdict := "PASS\nthe tests cover the feature."
		if loopName == "software_delivery" {
			verdict = "VERDICT: PASS\nthe tests cover the feature."
		}
		return traceScenario{needs: []string{"subagent", "subagent_stop"}, turns: []tTurn{
			{"Add a greeting feature", []tAct{tWrite("greet.txt", "hello\n"), tBash("make test"), tSay("make test passes. READY FOR REVIEW")}},
			{"Have a fresh evaluator subagent review it", []tAct{
				tSpawn("review greet.txt and the passing make test; answer with the verdict on the first line", verdict),
				tSay("The evaluator passed it.")}},
		}}
	}
	return traceScenario{}
}

// traceFiles are the scratch repo's files: a Makefile whose test target
// passes, a handoff note, an experiment script.
var traceFiles = map[string]string{
	"Makefile":   "test:\n\t@echo 'ok: all tests passed'\n",
	"HANDOFF.md": "# Handoff\n- next: add greet.txt\n",
	"run.sh":     "#!/bin/sh\nprintf 'run\\t0.91\\n'\n",
}

func wantRecording(t *testing.T) {
	if !*recordTraces && os.Getenv("HOOK_LOOP_RECORD_TRACES") == "" {
		t.Skip("records gallery/traces from the real harnesses: pass -record-traces or set HOOK_LOOP_RECORD_TRACES=1 (one loop at a time: -run 'TestRecordTraces/LOOP/')")
	}
}

// traceHarnesses say which capabilities each harness has offline with the mocks.
var traceHarnesses = []struct {
	name string
	can  map[string]bool
	run  func(t *testing.T, loopName string, sc traceScenario) (trace []byte, dir, home string)
}{
	{"codex", map[string]bool{"subagent": true, "subagent_stop": true}, recordCodex},
	{"claude", map[string]bool{"subagent": true, "subagent_stop": true}, recordClaude},
	// opencode's task tool starts a subagent, but the plugin maps the child
	// session onto its parent and sends no SubagentStop.
	{"opencode", map[string]bool{"subagent": true}, recordOpencode},
	{"pi", map[string]bool{}, recordPi},
}

func TestRecordTraces(t *testing.T) {
	wantRecording(t)
	for _, loopName := range gallery.Names() {
		t.Run(loopName, func(t *testing.T) {
			for _, h := range traceHarnesses {
				t.Run(h.name, func(t *testing.T) {
					for _, kind := range []string{"complete", "early-stop", "complete-subagent"} {
						t.Run(kind, func(t *testing.T) {
							sc := scenarioFor(loopName, kind)
							if len(sc.turns) == 0 {
								if kind == "complete-subagent" {
									t.Skipf("%s: no evaluator subagent in this loop", loopName)
								}
								t.Fatalf("no scenario for %s", loopName)
							}
							for _, n := range sc.needs {
								if !h.can[n] {
									t.Skipf("%s: %s cannot do %s offline, which this loop needs", loopName, h.name, n)
								}
							}
							trace, dir, home := h.run(t, loopName, sc)
							out := normTrace(string(trace), dir, TraceProject)
							// Claude Code names its transcript folder after the project path.
							out = strings.ReplaceAll(out, claudeProjectKey(dir), claudeProjectKey(TraceProject))
							if home != "" {
								out = normTrace(out, home, TraceHome)
							}
							if strings.Contains(out, filepath.Dir(dir)) {
								t.Errorf("trace still names the scratch folder %s", filepath.Dir(dir))
							}
							dest := filepath.Join(repoRoot(), "gallery", "traces", loopName, h.name+"-"+kind+".jsonl")
							if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
								t.Fatal(err)
							}
							if err := os.WriteFile(dest, []byte(out), 0o644); err != nil {
								t.Fatal(err)
							}
							t.Logf("wrote %s (%d events)", dest, strings.Count(out, "\n"))
							replayCheck(t, loopName, h.name, dest, kind)
						})
					}
				})
			}
		})
	}
}

// replayCheck replays the new trace with the built hook-loop and logs it, so a
// recording that misses the loop's path is seen at once.
func replayCheck(t *testing.T, loopName, harness, trace, kind string) {
	t.Helper()
	dir := t.TempDir()
	data, _ := gallery.Get(loopName)
	if err := os.WriteFile(filepath.Join(dir, "hook-loop.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(hookLoopBinary(t), "replay", "--harness", harness, "--rebase", TraceProject, trace)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	t.Logf("replay:\n%s", out)
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	if !strings.Contains(string(out), "final state: done (outcome completed") {
		t.Errorf("the %s trace does not replay to done", kind)
	}
	if kind == "early-stop" && !strings.Contains(string(out), "reason:") {
		t.Errorf("the early-stop trace shows no refusal")
	}
}

// normTrace replaces a path in the JSON lines (where it appears escaped).
func normTrace(s, from, to string) string {
	j, _ := json.Marshal(from)
	k, _ := json.Marshal(to)
	s = strings.ReplaceAll(s, string(j[1:len(j)-1]), string(k[1:len(k)-1]))
	if r, err := filepath.EvalSymlinks(from); err == nil && r != from {
		j, _ = json.Marshal(r)
		s = strings.ReplaceAll(s, string(j[1:len(j)-1]), string(k[1:len(k)-1]))
	}
	return s
}

// claudeProjectKey is how Claude Code turns a project path into the name of its
// folder under ~/.claude/projects.
func claudeProjectKey(dir string) string {
	return regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(dir, "-")
}

// newTraceRepo makes the scratch git repo with the scenario's files.
func newTraceRepo(t *testing.T) (root, dir string) {
	t.Helper()
	root = t.TempDir()
	dir = filepath.Join(root, "repo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range traceFiles {
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "."}, {"config", "user.email", "trace@example.invalid"}, {"config", "user.name", "trace"},
		{"config", "commit.gpgsign", "false"}, {"add", "-A"}, {"commit", "-q", "-m", "start"}} {
		c := exec.Command("git", args...)
		c.Dir = dir
		if out, err := c.CombinedOutput(); err != nil {
			t.Skipf("git %v failed (git is needed for the scratch repo): %v %s", args, err, out)
		}
	}
	return root, dir
}

func installArgs(harness, loopName string, extra ...string) []string {
	return append([]string{harness, "install", "--profile", loopName, "--record", "--write"}, extra...)
}

func runHookLoop(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(hookLoopBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("hook-loop %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// readTrace reads the trace beside the project's log, found as the hooks
// found it with the harness's environment env.
func readTrace(t *testing.T, dir string, env []string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(filepath.Dir(projectLogPath(t, dir, env)), "trace.jsonl"))
	if err != nil {
		t.Fatalf("no trace recorded: %v", err)
	}
	return b
}

// stepper hands out the main agent's actions in order, across turns, and says
// which turn each belongs to.
type stepper struct {
	mu   sync.Mutex
	acts []tAct
	n    int
	seen []string // every model request's body, in arrival order
}

// saw keeps a model request's body, to check what the model was told.
func (s *stepper) saw(body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = append(s.seen, string(body))
}

// received reports whether any model request contained text.
func (s *stepper) received(text string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.seen {
		if strings.Contains(b, text) {
			return true
		}
	}
	return false
}

func newStepper(sc traceScenario) *stepper {
	s := &stepper{}
	for _, tr := range sc.turns {
		s.acts = append(s.acts, tr.acts...)
	}
	return s
}

// next returns the next action; past the script the model says "done".
func (s *stepper) next() tAct {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n >= len(s.acts) {
		s.n++
		return tSay("done")
	}
	a := s.acts[s.n]
	s.n++
	return a
}

// subAnswer is the subagent's answer for a task seen in a request.
func (s *stepper) subAnswer(text string) (string, bool) {
	for _, a := range s.acts {
		if a.spawn != "" && strings.Contains(text, a.spawn) {
			return a.sub, true
		}
	}
	return "", false
}

func (s *stepper) used() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

// ---------------------------------------------------------------- Codex

func recordCodex(t *testing.T, loopName string, sc traceScenario) ([]byte, string, string) {
	codex := harnessBin(t, "codex")
	root, dir := newTraceRepo(t)
	home := filepath.Join(root, "codex-home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	st := newStepper(sc)
	if sc.seen != nil {
		sc.seen(st)
	}
	mock := responses.Start(t, responses.Options{Respond: func(n int, req responses.Request) responses.Step {
		st.saw(req.Raw)
		spawned := false
		var userText []string
		for _, m := range req.Messages() {
			if m.Type == "function_call" && strings.HasPrefix(m.Text, "spawn_agent ") {
				spawned = true
			}
			if m.Type == "message" && m.Role == "user" {
				userText = append(userText, m.Text)
			}
		}
		if !spawned {
			if ans, ok := st.subAnswer(strings.Join(userText, "\n")); ok {
				return responses.Step{Message: ans}
			}
		}
		// spawn_agent returns at once: wait for the subagent, as a model would,
		// so that its SubagentStop comes before the main agent goes on.
		if in := req.Input(); len(in) > 0 && in[len(in)-1]["type"] == "function_call_output" {
			var out struct {
				AgentID string `json:"agent_id"`
			}
			if o, ok := in[len(in)-1]["output"].(string); ok && json.Unmarshal([]byte(o), &out) == nil && out.AgentID != "" {
				return responses.Step{Function: &responses.FunctionCall{Name: "wait_agent", Namespace: "multi_agent_v1",
					Arguments: map[string]any{"targets": []string{out.AgentID}, "timeout_ms": 30000}}}
			}
		}
		a := st.next()
		switch {
		case a.bash != "":
			return responses.Step{Command: a.bash}
		case a.path != "":
			var b strings.Builder
			b.WriteString("*** Begin Patch\n*** Add File: " + a.path + "\n")
			for _, l := range strings.SplitAfter(strings.TrimSuffix(a.body, "\n"), "\n") {
				b.WriteString("+" + strings.TrimSuffix(l, "\n") + "\n")
			}
			b.WriteString("*** End Patch\n")
			return responses.Step{Patch: b.String()}
		case a.spawn != "":
			return responses.Step{Function: &responses.FunctionCall{Name: "spawn_agent", Namespace: "multi_agent_v1",
				Arguments: map[string]any{"message": a.spawn}}}
		}
		return responses.Step{Message: a.say}
	}})
	cxWrite(t, filepath.Join(home, "config.toml"), []byte(fmt.Sprintf(`model = "gpt-5.5"
model_provider = "mock"
check_for_update_on_startup = false

[model_providers.mock]
name = "Local mock"
base_url = %q
env_key = "MOCK_API_KEY"
wire_api = "responses"
`, mock.URL)))
	env := append(os.Environ(), "CODEX_HOME="+home, "PATH="+filepath.Dir(codex)+string(os.PathListSeparator)+os.Getenv("PATH"))
	runHookLoop(t, dir, env, append(installArgs("codex", loopName, "--trust", "--codex-home", home, "--codex-bin", codex), sc.install...)...)
	for i, tr := range sc.turns {
		if i > 0 && sc.between != nil {
			sc.between(t, dir, env)
		}
		args := []string{"exec", "--skip-git-repo-check", "-s", "danger-full-access", tr.prompt}
		if i > 0 {
			args = []string{"exec", "resume", "--skip-git-repo-check", "-c", `sandbox_mode="danger-full-access"`, "--last", tr.prompt}
		}
		ctx, cancel := context.WithTimeout(context.Background(), codexRunTimeout)
		cmd := exec.CommandContext(ctx, codex, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "CODEX_HOME="+home, "HOME="+root, "MOCK_API_KEY=dummy", "NO_COLOR=1")
		var so, se bytes.Buffer
		cmd.Stdout, cmd.Stderr = &so, &se
		err := cmd.Run()
		timedOut := ctx.Err() != nil
		cancel()
		t.Logf("codex turn %d (%q): exit %v\nstdout: %s\nhooks:\n%s", i+1, tr.prompt, err, so.String(), hookLines(se.String()))
		if timedOut {
			t.Fatalf("codex exec did not finish within %v\nstderr:\n%s", codexRunTimeout, se.String())
		}
		if err != nil {
			t.Fatalf("codex exec: %v\nstderr:\n%s", err, se.String())
		}
	}
	if st.used() < len(st.acts) {
		t.Errorf("the model used %d of its %d scripted actions", st.used(), len(st.acts))
	}
	return readTrace(t, dir, env), dir, home
}

// ---------------------------------------------------------------- Claude Code

func recordClaude(t *testing.T, loopName string, sc traceScenario) ([]byte, string, string) {
	bin := harnessBin(t, "claude")
	root, dir := newTraceRepo(t)
	home := filepath.Join(root, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	st := newStepper(sc)
	if sc.seen != nil {
		sc.seen(st)
	}
	mock, err := messages.Start(messages.Script{Next: func(r *messages.Request, n int) messages.Step {
		st.saw(r.Body)
		spawned := false
		var userText []string
		for _, m := range r.Messages() {
			for _, b := range m.Content {
				if b.Type == "tool_use" && (b.Name == "Agent" || b.Name == "Task") {
					spawned = true
				}
				if m.Role == "user" && b.Type == "text" {
					userText = append(userText, b.Text)
				}
			}
		}
		if !spawned {
			if ans, ok := st.subAnswer(strings.Join(userText, "\n")); ok {
				return messages.Text(ans)
			}
		}
		a := st.next()
		switch {
		case a.bash != "":
			return messages.Bash(a.bash)
		case a.path != "":
			return messages.Step{Tool: "Write", Input: map[string]any{"file_path": filepath.Join(dir, a.path), "content": a.body}}
		case a.spawn != "":
			return messages.Step{Tool: "Agent", Input: map[string]any{"description": "worker", "prompt": a.spawn, "subagent_type": "general-purpose",
				// in the foreground: the main agent waits for the subagent's answer
				"run_in_background": false}}
		}
		return messages.Text(a.say)
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mock.Close() })
	env := mock.Env(home)
	runHookLoop(t, dir, env, append(installArgs("claude", loopName), sc.install...)...)
	for i, tr := range sc.turns {
		if i > 0 && sc.between != nil {
			sc.between(t, dir, env)
		}
		args := []string{"-p", tr.prompt, "--output-format", "json", "--allowedTools", "Bash Write Edit Read Agent Task"}
		if i > 0 {
			args = append(args, "--continue")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Dir = dir
		cmd.Env = append(env, "CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS=15000")
		var so, se bytes.Buffer
		cmd.Stdout, cmd.Stderr = &so, &se
		err := cmd.Run()
		timedOut := ctx.Err() != nil
		cancel()
		t.Logf("claude turn %d (%q): exit %v\nstdout: %.600s\nstderr: %.600s", i+1, tr.prompt, err, so.String(), se.String())
		if timedOut {
			t.Fatalf("claude -p did not finish in time")
		}
		if err != nil {
			t.Fatalf("claude -p: %v", err)
		}
	}
	if st.used() < len(st.acts) {
		t.Errorf("the model used %d of its %d scripted actions", st.used(), len(st.acts))
	}
	return readTrace(t, dir, env), dir, home
}

// ---------------------------------------------------------------- opencode and pi

// chatReply turns an action into the chat mock's answer, with the tool names
// opencode and pi share (bash, write, task).
func chatReply(a tAct, harness, dir string) chat.Reply {
	switch {
	case a.bash != "":
		return chat.Reply{ToolCalls: []chat.Call{chat.NewCall("bash", map[string]any{"command": a.bash, "description": "scripted"})}}
	case a.path != "":
		if harness == "pi" {
			return chat.Reply{ToolCalls: []chat.Call{chat.NewCall("write", map[string]any{"path": a.path, "content": a.body})}}
		}
		return chat.Reply{ToolCalls: []chat.Call{chat.NewCall("write", map[string]any{"filePath": filepath.Join(dir, a.path), "content": a.body})}}
	case a.spawn != "":
		return chat.Reply{ToolCalls: []chat.Call{chat.NewCall("task", map[string]any{"description": "worker", "prompt": a.spawn, "subagent_type": "general"})}}
	}
	return chat.Reply{Text: a.say}
}

func chatRespond(st *stepper, harness, dir string) func(*chat.Request) chat.Reply {
	return func(r *chat.Request) chat.Reply {
		st.saw(r.Body)
		spawned := false
		var userText []string
		for _, m := range r.Messages {
			for _, c := range m.ToolCalls {
				if c.Name == "task" {
					spawned = true
				}
			}
			if m.Role == "user" {
				userText = append(userText, m.Content)
			}
		}
		if !spawned {
			if ans, ok := st.subAnswer(strings.Join(userText, "\n")); ok {
				return chat.Reply{Text: ans}
			}
		}
		return chatReply(st.next(), harness, dir)
	}
}

func recordOpencode(t *testing.T, loopName string, sc traceScenario) ([]byte, string, string) {
	opencode := harnessBin(t, "opencode")
	root, dir := newTraceRepo(t)
	st := newStepper(sc)
	if sc.seen != nil {
		sc.seen(st)
	}
	mock, err := chat.Start(chat.Options{Respond: chatRespond(st, "opencode", dir), TitleText: "Trace title"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mock.Close() })
	xdg := filepath.Join(root, "xdg")
	home := filepath.Join(root, "home")
	for _, d := range []string{home, xdg + "/config/opencode", xdg + "/data", xdg + "/cache", xdg + "/state"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ocWriteJSON(t, filepath.Join(xdg, "config", "opencode", "opencode.json"), map[string]any{
		"$schema": "https://opencode.ai/config.json",
		"provider": map[string]any{"mock": map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": "Mock",
			"options": map[string]any{"baseURL": mock.BaseURL(), "apiKey": "dummy-key"},
			"models": map[string]any{"mock-model": map[string]any{"name": "Mock Model", "tool_call": true,
				"limit": map[string]any{"context": 128000, "output": 4096}}},
		}},
		"model": "mock/mock-model", "small_model": "mock/mock-model", "autoupdate": false, "share": "disabled",
		"permission": map[string]any{"edit": "allow", "bash": "allow", "external_directory": "allow"},
	})
	for _, d := range []string{filepath.Join(dir, ".opencode"), filepath.Join(xdg, "config", "opencode")} {
		ocSeedDeps(t, d)
	}
	env := append(os.Environ(),
		"HOME="+home,
		"XDG_CONFIG_HOME="+xdg+"/config", "XDG_DATA_HOME="+xdg+"/data",
		"XDG_CACHE_HOME="+xdg+"/cache", "XDG_STATE_HOME="+xdg+"/state",
		"OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"OPENCODE_DISABLE_SHARE=1", "OPENCODE_DISABLE_CLAUDE_CODE=1",
		"npm_config_registry=http://127.0.0.1:9/",
		"PWD="+dir,
	)
	runHookLoop(t, dir, env, append(installArgs("opencode", loopName, "--destination", dir), sc.install...)...)
	for i, tr := range sc.turns {
		if i > 0 && sc.between != nil {
			sc.between(t, dir, env)
		}
		args := []string{"run", "--print-logs", "--log-level", "INFO", tr.prompt}
		if i > 0 {
			args = []string{"run", "--continue", "--print-logs", "--log-level", "INFO", tr.prompt}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Second)
		cmd := exec.CommandContext(ctx, opencode, args...)
		cmd.Dir, cmd.Env = dir, env
		var so, se bytes.Buffer
		cmd.Stdout, cmd.Stderr = &so, &se
		err := cmd.Run()
		timedOut := ctx.Err() != nil
		cancel()
		t.Logf("opencode turn %d (%q): exit %v\nstdout: %.800s", i+1, tr.prompt, err, so.String())
		if f := os.Getenv("HOOK_LOOP_TRACE_STDERR"); f != "" {
			_ = os.WriteFile(fmt.Sprintf("%s.%d", f, i+1), se.Bytes(), 0o644)
		}
		if timedOut || err != nil {
			var keep []string
			for _, l := range strings.Split(se.String(), "\n") {
				if strings.Contains(l, "hook-loop") || strings.Contains(l, "ERROR") {
					keep = append(keep, l)
				}
			}
			t.Fatalf("opencode run: timed out %v, %v\n%s", timedOut, err, strings.Join(keep, "\n"))
		}
	}
	if st.used() < len(st.acts) {
		t.Errorf("the model used %d of its %d scripted actions", st.used(), len(st.acts))
	}
	return readTrace(t, dir, env), dir, home
}

func recordPi(t *testing.T, loopName string, sc traceScenario) ([]byte, string, string) {
	piBin := piHarnessBin(t)
	root, dir := newTraceRepo(t)
	st := newStepper(sc)
	if sc.seen != nil {
		sc.seen(st)
	}
	mock, err := chat.Start(chat.Options{Respond: chatRespond(st, "pi", dir), TitleText: "Trace title"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mock.Close() })
	home := filepath.Join(root, "home")
	xdg := filepath.Join(root, "xdg")
	agent := filepath.Join(home, ".pi", "agent")
	for _, d := range []string{agent, xdg + "/config", xdg + "/data", xdg + "/cache", xdg + "/state"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ocWriteJSON(t, filepath.Join(agent, "models.json"), map[string]any{"providers": map[string]any{"mock": map[string]any{
		"baseUrl": mock.BaseURL(), "api": "openai-completions", "apiKey": "mock-key",
		"compat": map[string]any{"supportsDeveloperRole": false, "supportsReasoningEffort": false},
		"models": []any{map[string]any{"id": "mock-model", "name": "Mock Model", "reasoning": false, "input": []string{"text"},
			"contextWindow": 128000, "maxTokens": 4096,
			"cost": map[string]any{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}}},
	}}})
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "PI_") || strings.HasPrefix(k, "XDG_") || k == "HOME" || k == "HOOK_LOOP_PI_TIMEOUT_MS" {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+home,
		"XDG_CONFIG_HOME="+xdg+"/config", "XDG_DATA_HOME="+xdg+"/data",
		"XDG_CACHE_HOME="+xdg+"/cache", "XDG_STATE_HOME="+xdg+"/state",
		"PI_OFFLINE=1", "PI_TELEMETRY=0", "PI_SKIP_VERSION_CHECK=1", "HOOK_LOOP_PI_TIMEOUT_MS=30000")
	runHookLoop(t, dir, env, append(installArgs("pi", loopName, "--destination="+dir), sc.install...)...)
	for i, tr := range sc.turns {
		if i > 0 && sc.between != nil {
			sc.between(t, dir, env)
		}
		args := []string{"--provider", "mock", "--model", "mock-model", "-nc", "-p", tr.prompt}
		if i > 0 {
			args = []string{"--provider", "mock", "--model", "mock-model", "-nc", "--continue", "-p", tr.prompt}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
		cmd := exec.CommandContext(ctx, piBin, args...)
		cmd.Dir, cmd.Env = dir, env
		cmd.WaitDelay = 5 * time.Second
		var so, se bytes.Buffer
		cmd.Stdout, cmd.Stderr = &so, &se
		err := cmd.Run()
		timedOut := ctx.Err() != nil
		cancel()
		t.Logf("pi turn %d (%q): exit %v\nstdout: %.800s\nstderr: %.800s", i+1, tr.prompt, err, so.String(), se.String())
		if timedOut || err != nil {
			t.Fatalf("pi -p: timed out %v, %v", timedOut, err)
		}
	}
	if st.used() < len(st.acts) {
		t.Errorf("the model used %d of its %d scripted actions", st.used(), len(st.acts))
	}
	return readTrace(t, dir, env), dir, home
}
