package e2e

// End-to-end tests of the Gemini CLI adapter: the real `gemini` binary (npm
// @google/gemini-cli@0.61.0) runs `gemini -p` against the Go mock of the
// Gemini API on 127.0.0.1, in a project set up by
// `hook-loop gemini install --write`, with the environment from
// harness/gemini/README.md (API key auth, workspace trusted by the
// environment, HOME in a temporary folder).

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/adapters/gemini"
	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/gallery"
	"github.com/hook-loop/hook-loop/scaffold"
	mock "github.com/hook-loop/hook-loop/testkit/mockmodel/gemini"
)

// geminiProject is a scratch project with hook-loop installed for Gemini CLI.
type geminiProject struct {
	dir  string // the project
	home string // HOME for gemini: its settings and state stay here
}

// newGeminiProject writes the gallery's plan_execute loop (edited by edit,
// when given), a Makefile whose `test` target passes (or fails with FAIL=1),
// Gemini CLI's user settings, and installs hook-loop with the real command.
func newGeminiProject(t *testing.T, edit func([]byte) []byte) *geminiProject {
	t.Helper()
	root := t.TempDir()
	p := &geminiProject{dir: filepath.Join(root, "project with space"), home: filepath.Join(root, "home")}
	for _, d := range []string{p.dir, filepath.Join(p.home, ".gemini")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	data, err := gallery.Get("plan_execute")
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		data = edit(data)
	}
	writeFile(t, filepath.Join(p.dir, "hook-loop.json"), data)
	writeFile(t, filepath.Join(p.dir, "Makefile"), []byte("test:\n\t@test -z \"$(FAIL)\" || { echo 'FAIL: 1 test failed'; exit 1; }\n\t@echo 'ok: all tests passed'\n"))
	writeFile(t, filepath.Join(p.home, ".gemini", "settings.json"), []byte(mock.UserSettings))
	cmd := exec.Command(hookLoopBinary(t), "gemini", "install", "--write")
	cmd.Dir = p.dir
	cmd.Env = append(os.Environ(), "HOME="+p.home)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hook-loop gemini install --write: %v\n%s", err, out)
	}
	return p
}

// geminiRun is one finished `gemini -p`.
type geminiRun struct {
	mock           *mock.Server
	stdout, stderr string
	exit           int
}

// run starts the mock with script and runs gemini -p prompt in the project.
func (p *geminiProject) run(t *testing.T, script mock.Script, prompt string) *geminiRun {
	t.Helper()
	bin := harnessBin(t, "gemini")
	m, err := mock.Start(script)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	// Node's start alone takes seconds on a loaded 2-core machine; every
	// event also runs a hook.
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-p", prompt, "--yolo")
	cmd.Dir = p.dir
	cmd.Env = m.Env(p.home)
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	r := &geminiRun{mock: m, stdout: stdout.String(), stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.exit = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run gemini: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatalf("gemini -p did not finish in time\nstderr: %s\nmock requests: %d", r.stderr, len(m.Requests()))
	}
	for _, req := range m.Requests() {
		if req.Kind == "other" {
			t.Errorf("gemini sent an unexpected request to the mock: %s %s", req.Method, req.Path)
		}
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("gemini exit %d\nstdout: %s\nstderr: %s", r.exit, r.stdout, r.stderr)
			for i, req := range m.MainRequests() {
				t.Logf("main request %d got %+v; new parts:\n  %s", i+1, req.Step, strings.Join(mock.Texts(req.AfterLastModel()), "\n  "))
			}
		}
	})
	return r
}

func (p *geminiProject) events(t *testing.T) []eventlog.Event {
	t.Helper()
	return logFileEvents(t, projectLog(p.dir))
}

// stopFeedback returns the refused-stop reasons a request carried to the
// model: Gemini CLI sends a denied AfterAgent's reason as the next prompt.
func stopFeedback(r mock.Request) []string {
	var out []string
	for _, p := range r.AfterLastModel() {
		if p.Role == "user" && p.Kind == "text" && strings.HasPrefix(p.Text, gemini.StopMark) {
			out = append(out, p.Text)
		}
	}
	return out
}

// functionResponses returns the tool results a request carried to the model.
func functionResponses(r mock.Request) []mock.Part {
	var out []mock.Part
	for _, p := range r.AfterLastModel() {
		if p.Kind == "functionResponse" {
			out = append(out, p)
		}
	}
	return out
}

func (p *geminiProject) plan() mock.Step {
	return mock.WriteFile(filepath.Join(p.dir, "PLAN.md"), "1. make the tests pass: verify with `make test`\n")
}

// An early stop is refused with the reason built from the DSL and the agent
// goes on; a write the planning state's policy forbids is refused before it
// runs; a failing check does not advance the loop and a passing one does
// (the exit code read from Gemini CLI's tool result); the stop in the
// terminal state is allowed and gemini exits 0.
func TestGeminiEarlyStopRefusedThenDone(t *testing.T) {
	t.Parallel()
	p := newGeminiProject(t, nil)
	early := filepath.Join(p.dir, "feature.go")
	r := p.run(t, mock.Script{Steps: []mock.Step{
		mock.Text("I am done."),
		mock.WriteFile(early, "package feature\n"),
		p.plan(),
		mock.Shell("make test FAIL=1"),
		mock.Shell("make test"),
		mock.Text("ALL STEPS PASS"),
	}}, "Add a greeting feature")

	if r.exit != 0 {
		t.Fatalf("gemini exit %d, want 0", r.exit)
	}
	main := r.mock.MainRequests()
	if len(main) != 6 {
		t.Fatalf("model got %d main requests, want 6 (early stop, refused write, plan, failing test, passing test, final)", len(main))
	}
	if first := strings.Join(mock.Texts(main[0].Parts()), "\n"); !strings.Contains(first, `hook-loop is gating this session with the loop "plan_execute"`) {
		t.Errorf("the first request lacks the SessionStart contract:\n%s", first)
	}
	t.Logf("after the early stop, the model received:\n  %s", strings.Join(mock.Texts(main[1].AfterLastModel()), "\n  "))
	fb := stopFeedback(main[1])
	if len(fb) != 1 {
		t.Fatalf("request 2 carries %d refused-stop reasons, want 1: %q", len(fb), mock.Texts(main[1].AfterLastModel()))
	}
	for _, want := range []string{`"plan_execute"`, `"planning"`, "PLAN.md", "executing"} {
		if !strings.Contains(fb[0], want) {
			t.Errorf("stop reason lacks %q (it must come from the DSL):\n%s", want, fb[0])
		}
	}
	if _, err := os.Stat(early); err == nil {
		t.Errorf("the write the planning policy forbids ran: %s exists", early)
	}
	fr := functionResponses(main[2])
	if len(fr) != 1 || !strings.Contains(fr[0].Text, "Tool execution blocked:") || !strings.Contains(fr[0].Text, "write only PLAN.md") {
		t.Errorf("the model got %+v for the forbidden write, want Gemini CLI's block with the policy's reason", fr)
	}
	if fr := functionResponses(main[4]); len(fr) != 1 || !strings.Contains(fr[0].Text, "Exit Code: 2") {
		t.Errorf("the failing check's result = %+v, want Exit Code: 2", fr)
	}
	for i, req := range main[2:] {
		if f := stopFeedback(req); len(f) != 0 {
			t.Errorf("request %d carries an unexpected refused stop %q", i+3, f)
		}
	}
	evs := p.events(t)
	got := strings.Join(transitions(evs), ", ")
	want := "backlog -kickoff-> planning, planning -plan_ready-> executing, executing -step_done-> verifying, verifying -all_steps_pass-> done"
	if got != want {
		t.Errorf("transitions = %s\nwant %s", got, want)
	}
	var blocked, refused, evidence, continuations int
	var failState string
	for _, e := range evs {
		switch e.EventType {
		case "tool_blocked":
			blocked++
		case eventlog.TypeStopRefused:
			refused++
		case eventlog.TypeEvidenceRegistered:
			evidence++
			if ec, _ := e.Payload["exit_code"].(float64); ec != 0 || e.Actor != "gemini" {
				t.Errorf("evidence %v by %q, want exit code 0 by gemini", e.Payload, e.Actor)
			}
		case eventlog.TypeHookFired:
			if e.Payload["hook_event_name"] == gemini.EventContinuation {
				continuations++
			}
			if e.Payload["native_event"] == gemini.NativeAfterTool && failState == "" && e.State != "planning" {
				failState = e.State
			}
		}
	}
	if blocked != 1 || refused != 1 || evidence != 1 {
		t.Errorf("tool_blocked %d, stop_refused %d, evidence %d; want 1 each", blocked, refused, evidence)
	}
	if continuations != 1 {
		t.Errorf("%d BeforeAgent continuations of a refused stop recorded, want 1", continuations)
	}
	if failState != "executing" {
		t.Errorf("after the failing make test the loop is in %q, want executing", failState)
	}
	oc := outcomes(evs)
	if len(oc) != 1 || oc[0]["outcome"] != "completed" || oc[0]["forced_by_harness"] != nil {
		t.Errorf("outcomes = %v, want one completed, not forced", oc)
	}
}

// A session keeps the loop it started with: the test deletes the loop file
// mid-session and the next stop is still refused with the pinned loop's
// reason; past max_stop_blocks 1 the agent is let go (capped).
func TestGeminiDeletedLoopFileKeepsThePinnedLoop(t *testing.T) {
	t.Parallel()
	p := newGeminiProject(t, capAtOne)
	loopFile := filepath.Join(p.dir, "hook-loop.json")
	r := p.run(t, mock.Script{Next: func(_ *mock.Request, n int) mock.Step {
		if n == 0 {
			if err := os.Remove(loopFile); err != nil {
				t.Errorf("delete the loop file: %v", err)
			}
			return mock.Text("I am done.")
		}
		return mock.Text("Still done.")
	}}, "Add a greeting feature")
	if r.exit != 0 {
		t.Errorf("gemini exit %d, want 0", r.exit)
	}
	main := r.mock.MainRequests()
	if len(main) != 2 {
		t.Fatalf("model got %d main requests, want 2 (stop refused, stop capped)", len(main))
	}
	fb := stopFeedback(main[1])
	if len(fb) != 1 {
		t.Fatalf("request 2 carries %d refused-stop reasons, want 1", len(fb))
	}
	for _, want := range pinnedReason {
		if !strings.Contains(fb[0], want) {
			t.Errorf("the refusal the model read lacks %q:\n%s", want, fb[0])
		}
	}
	checkPinnedLog(t, p.events(t))
}

// The agent running hook-loop gemini uninstall (by a link with another name)
// is refused before it runs, and the install is still there afterwards.
func TestGeminiAgentCannotUninstall(t *testing.T) {
	t.Parallel()
	p := newGeminiProject(t, nil)
	alias := filepath.Join(t.TempDir(), "hl")
	if err := os.Symlink(hookLoopBinary(t), alias); err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(p.dir, ".gemini", "settings.json")
	before, err := os.ReadFile(settings)
	if err != nil {
		t.Fatal(err)
	}
	r := p.run(t, mock.Script{Steps: []mock.Step{
		p.plan(),
		mock.Shell(scaffold.ShellQuote(alias) + " gemini uninstall --write"),
		mock.Shell("make test"),
		mock.Text("ALL STEPS PASS"),
	}}, "Add a greeting feature")
	if r.exit != 0 {
		t.Fatalf("gemini exit %d", r.exit)
	}
	if after, err := os.ReadFile(settings); err != nil || !bytes.Equal(after, before) {
		t.Errorf(".gemini/settings.json changed or is gone (%v)", err)
	}
	main := r.mock.MainRequests()
	if len(main) != 4 {
		t.Fatalf("model got %d main requests, want 4", len(main))
	}
	fr := functionResponses(main[2])
	if len(fr) != 1 || !strings.Contains(fr[0].Text, "Tool execution blocked:") || !strings.Contains(fr[0].Text, "the person's to run") {
		t.Errorf("the model got %+v for the uninstall, want Gemini CLI's block saying it is the person's to run", fr)
	}
}
