package e2e

// End-to-end tests of GitHub Copilot CLI 1.0.102 (npm @github/copilot) and
// Qwen Code 0.24.4 (npm @qwen-code/qwen-code), installed by
// scripts/install-harnesses.sh, each against the scripted chat-completions
// model on 127.0.0.1 and with hook-loop installed by its real install command:
// Copilot in BYOK mode (COPILOT_PROVIDER_BASE_URL: no GitHub login), Qwen Code
// with an OpenAI-compatible endpoint (OPENAI_BASE_URL). HOME is the test's
// temp dir; proxies point at a closed loopback port, so only the mock answers.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/testkit/mockmodel/chat"
	"github.com/hook-loop/hook-loop/testkit/procs"
)

// cqLoop: a shell command running check.sh that exits 0 is the evidence
// that verifies the work; the agent's final message saying "Finished" then
// ends the loop (Qwen Code sends that message with Stop; Copilot CLI's is read
// from its session transcript). Until then a stop is refused, and writing a
// file is refused by the building state's policy.
const cqLoop = `{
  "loop": {
    "id": "cq_e2e",
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
    "instructions": {"building": "Run the checks (sh check.sh) until they exit 0.", "verified": "Say Finished."},
    "policies": {"building": {"deny_tools": ["Write"], "reason": "e2e policy: no file writes while building, run sh check.sh"}}
  },
  "codex": {
    "event_map": [
      {"codex_event": "PostToolUse", "when": {"tool_name": "Bash", "command_match": "check\\.sh", "exit_code": 0}, "emit": "tests_passed"},
      {"codex_event": "Stop", "when": {"last_message_match": "Finished"}, "emit": "finished"}
    ]
  }
}
`

// cqHarness is what differs between the two harnesses in these tests.
type cqHarness struct {
	name, bin string
	// shell and write are the model's tool calls to run a command and to
	// write a file, in the harness's own tool names.
	shell func(cmd string) chat.Step
	write func(path string) chat.Step
	// setup prepares HOME and returns the environment beyond the base one.
	setup func(t *testing.T, home, baseURL string) []string
	// args are the command line of one headless run.
	args func(prompt string) []string
}

var copilotHarness = cqHarness{
	name: "copilot", bin: "copilot",
	shell: func(cmd string) chat.Step {
		return chat.ToolCall("bash", map[string]any{"command": cmd, "description": "run", "mode": "sync", "initial_wait": 60})
	},
	write: func(path string) chat.Step {
		return chat.ToolCall("create", map[string]any{"path": path, "file_text": "notes\n"})
	},
	setup: func(t *testing.T, home, baseURL string) []string {
		return []string{"COPILOT_PROVIDER_BASE_URL=" + baseURL, "COPILOT_MODEL=gpt-4.1",
			"COPILOT_PROVIDER_API_KEY=dummy", "COPILOT_AUTO_UPDATE=false",
			// The native binary unpacks its ~230 MB package once per cache
			// folder: one folder for the whole test run, not one per HOME.
			"COPILOT_PKG_CACHE_HOME=" + copilotPkgCache(t)}
	},
	args: func(prompt string) []string {
		return []string{"-p", prompt, "--trust-folder", "--allow-all-tools"}
	},
}

var qwenHarness = cqHarness{
	name: "qwen", bin: "qwen",
	shell: func(cmd string) chat.Step {
		return chat.ToolCall("run_shell_command", map[string]any{"command": cmd, "description": "run"})
	},
	write: func(path string) chat.Step {
		return chat.ToolCall("write_file", map[string]any{"file_path": path, "content": "notes\n"})
	},
	setup: func(t *testing.T, home, baseURL string) []string {
		cqWriteJSON(t, filepath.Join(home, ".qwen", "settings.json"), map[string]any{
			"security": map[string]any{"auth": map[string]any{"selectedType": "openai"}},
			"model":    map[string]any{"name": "gpt-4.1"},
			"general":  map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true},
			"privacy":  map[string]any{"usageStatisticsEnabled": false},
		})
		return []string{"OPENAI_API_KEY=dummy", "OPENAI_BASE_URL=" + baseURL, "OPENAI_MODEL=gpt-4.1",
			"QWEN_CODE_SUPPRESS_YOLO_WARNING=1"}
	},
	args: func(prompt string) []string { return []string{"-p", prompt, "--yolo"} },
}

var (
	copilotPkgOnce sync.Once
	copilotPkgErr  error
)

// copilotPkgCache is the folder the native binary unpacks its package into,
// beside the built hook-loop (TestMain removes it). The first caller unpacks
// it with `copilot --version`, so parallel tests never unpack at once.
func copilotPkgCache(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(filepath.Dir(hookLoopBinary(t)), "copilot-pkg")
	copilotPkgOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, harnessBin(t, "copilot"), "--version")
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir(), "COPILOT_AUTO_UPDATE=false", "COPILOT_PKG_CACHE_HOME=" + dir,
			"HTTPS_PROXY=http://127.0.0.1:9", "https_proxy=http://127.0.0.1:9", procs.MarkerEnv + "=" + os.Getenv(procs.MarkerEnv)}
		if out, err := cmd.CombinedOutput(); err != nil {
			copilotPkgErr = fmt.Errorf("copilot --version: %v\n%s", err, out)
		}
	})
	if copilotPkgErr != nil {
		t.Fatal(copilotPkgErr)
	}
	return dir
}

// cqProject is one isolated project with hook-loop installed for h.
type cqProject struct {
	h       cqHarness
	exe     string
	dir     string // the project; its path has a space on purpose
	env     []string
	mock    *chat.Server
	logPath string
	stdout  bytes.Buffer
	stderr  bytes.Buffer
}

func newCQProject(t *testing.T, h cqHarness, loopJSON string, steps []chat.Step) *cqProject {
	t.Helper()
	exe := harnessBin(t, h.name, h.bin)
	bin := hookLoopBinary(t)
	mock, err := chat.Start(chat.Options{Steps: steps, TitleText: "E2E title", DefaultText: "Nothing more to do."})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mock.Close() })
	root := t.TempDir()
	p := &cqProject{h: h, exe: exe, dir: filepath.Join(root, "my proj"), mock: mock}
	home := filepath.Join(root, "home")
	for _, d := range []string{p.dir, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range map[string]string{"hook-loop.json": loopJSON, "check.sh": "echo all checks ok\n"} {
		if err := os.WriteFile(filepath.Join(p.dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := exec.Command("git", "init", "-q", p.dir)
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	p.env = append([]string{
		"PATH=" + filepath.Dir(exe) + ":" + filepath.Dir(bin) + ":/usr/local/bin:/usr/bin:/bin",
		"HOME=" + home, "TERM=dumb", "PWD=" + p.dir, "CI=" + os.Getenv("CI"),
		"HTTP_PROXY=http://127.0.0.1:9", "HTTPS_PROXY=http://127.0.0.1:9", "http_proxy=http://127.0.0.1:9", "https_proxy=http://127.0.0.1:9",
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost", "npm_config_registry=http://127.0.0.1:9/",
	}, h.setup(t, home, mock.BaseURL())...)
	// Every process the run starts carries the mark TestMain checks.
	p.env = append(p.env, procs.MarkerEnv+"="+os.Getenv(procs.MarkerEnv), "HOOK_LOOP_STATE_DIR="+os.Getenv("HOOK_LOOP_STATE_DIR"))
	install := exec.Command(bin, h.name, "install", "--write", "--destination", p.dir)
	install.Env = p.env
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("hook-loop %s install: %v\n%s", h.name, err, out)
	}
	p.logPath = projectLog(p.dir)
	return p
}

// run runs one headless prompt to its end (bounded) and returns the exit code.
func (p *cqProject) run(t *testing.T, prompt string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 240*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.exe, p.h.args(prompt)...)
	cmd.Dir, cmd.Env = p.dir, p.env
	cmd.Stdout, cmd.Stderr = &p.stdout, &p.stderr
	cmd.WaitDelay = 10 * time.Second
	err := cmd.Run()
	if ctx.Err() != nil {
		p.dump(t)
		t.Fatalf("%s did not finish within 240 s", p.h.name)
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", p.h.name, err)
	}
	return 0
}

func (p *cqProject) dump(t *testing.T) {
	t.Helper()
	for _, r := range p.mock.AgentRequests() {
		var parts []string
		for _, m := range r.Messages {
			if m.Role != "system" {
				parts = append(parts, m.Role+": "+ocTrunc(m.Content, 300))
			}
		}
		t.Logf("model request %d (step %d): %s -> %+v", r.Seq, r.Step, strings.Join(parts, " | "), r.Reply)
	}
	if b, err := os.ReadFile(p.logPath); err == nil {
		t.Logf("event log:\n%s", ocTrunc(string(b), 8000))
	}
	t.Logf("stdout:\n%s\nstderr:\n%s", ocTrunc(p.stdout.String(), 3000), ocTrunc(p.stderr.String(), 3000))
}

func cqWriteJSON(t *testing.T, path string, v any) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	ocWriteJSON(t, path, v)
}

// The whole gate on the real binary: an early stop refused with the loop's
// reason and the agent going on; the agent's `hook-loop <h> uninstall`
// refused; a file write refused by the state's policy; a passing check.sh
// advancing the loop; the final stop allowed on the agent's last message;
// the binary exiting 0.
func TestCopilotGatesTheRealBinary(t *testing.T) { t.Parallel(); testCQGate(t, copilotHarness) }
func TestQwenGatesTheRealBinary(t *testing.T)    { t.Parallel(); testCQGate(t, qwenHarness) }

func testCQGate(t *testing.T, h cqHarness) {
	var dir string
	notes := func() string { return filepath.Join(dir, "notes.txt") }
	p := newCQProject(t, h, cqLoop, []chat.Step{
		chat.Text("All done, nothing else to do."),
		h.shell("hook-loop " + h.name + " uninstall --write"),
		func(r *chat.Request) chat.Reply { return h.write(notes())(r) },
		h.shell("sh check.sh"),
		chat.Text("Checks pass. Finished."),
	})
	dir = p.dir
	code := p.run(t, "Make sure the project checks pass.")
	reqs := p.mock.AgentRequests()
	defer func() {
		if t.Failed() || testing.Verbose() {
			p.dump(t)
		}
	}()
	if code != 0 {
		t.Errorf("%s exited %d, want 0", h.name, code)
	}
	if len(reqs) < 5 {
		t.Fatalf("the model got %d requests, want 5 (stop refused, uninstall, write, check, final stop)", len(reqs))
	}
	// 1: the early stop's refusal reached the model as the next prompt.
	if got := reqs[1].LastUserText(); !strings.Contains(got, `"building"`) || !strings.Contains(got, "check.sh") {
		t.Errorf("after the early stop the model read %q; want the loop's reason (state \"building\", its instructions)", got)
	}
	// 2: the agent's uninstall was refused.
	if got := reqs[2].LastToolResult(); !strings.Contains(got, "the person's to run") {
		t.Errorf("the model got %q for hook-loop %s uninstall, want hook-loop's refusal", got, h.name)
	}
	// 3: the write was refused by the building state's policy, and nothing was written.
	if got := reqs[3].LastToolResult(); !strings.Contains(got, "e2e policy: no file writes while building") {
		t.Errorf("the model got %q for the write, want the state policy's reason", got)
	}
	if _, err := os.Stat(notes()); err == nil {
		t.Errorf("%s was written despite the policy", notes())
	}
	// 4: the check ran and passed.
	// Qwen Code now and then reports a short command's output as "(empty)"
	// (seen on a loaded machine); the exit code it reports is what the loop
	// judges, and the transitions are checked on the log below.
	if got := reqs[4].LastToolResult(); !strings.Contains(got, "all checks ok") && !strings.Contains(got, "Exit Code: 0") {
		t.Errorf("the model got %q for sh check.sh, want its output", got)
	}
	if len(reqs) != 5 {
		t.Errorf("the model got %d requests, want 5: the final stop was not allowed at once", len(reqs))
	}
	var refused, advanced int
	var outcomes []string
	for _, e := range logFileEvents(t, p.logPath) {
		switch e.EventType {
		case eventlog.TypeStopRefused:
			refused++
		case eventlog.TypeStateTransitioned:
			if e.Payload["to"] == "verified" && e.Payload["event"] == "tests_passed" ||
				e.Payload["to"] == "done" && e.Payload["event"] == "finished" {
				advanced++
			}
		case eventlog.TypeLoopOutcome:
			o, _ := e.Payload["outcome"].(string)
			outcomes = append(outcomes, o)
		}
	}
	// The refusal coming back as a prompt is the agent going on, not a
	// forced end: the only outcome is the completion.
	if refused != 1 || advanced != 2 || len(outcomes) != 1 || outcomes[0] != "completed" {
		t.Errorf("log: %d refused stops, %d transitions (tests_passed, finished), outcomes %q; want 1, 2, [completed]", refused, advanced, outcomes)
	}
	if _, err := os.Stat(filepath.Join(p.dir, "hook-loop.json")); err != nil {
		t.Errorf("the loop file is gone: %v", err)
	}
}

// A session keeps the loop it started with: the test deletes the loop file
// during the first model call, and the stop that follows is still refused
// with the pinned loop's reason; past max_stop_blocks 1 the agent is let go.
func TestCopilotDeletedLoopFileKeepsThePinnedLoop(t *testing.T) {
	t.Parallel()
	testCQPinned(t, copilotHarness)
}

func TestQwenDeletedLoopFileKeepsThePinnedLoop(t *testing.T) {
	t.Parallel()
	testCQPinned(t, qwenHarness)
}

func testCQPinned(t *testing.T, h cqHarness) {
	var loopFile string
	p := newCQProject(t, h, strings.Replace(cqLoop, `"max_stop_blocks": 3`, `"max_stop_blocks": 1`, 1), []chat.Step{
		func(r *chat.Request) chat.Reply { return deleteThen(t, loopFile, "I think I am finished.")(r) },
		chat.Text("Still finished."),
	})
	loopFile = filepath.Join(p.dir, "hook-loop.json")
	if code := p.run(t, "Make sure the project checks pass."); code != 0 {
		p.dump(t)
		t.Errorf("%s exited %d, want 0", h.name, code)
	}
	reqs := p.mock.AgentRequests()
	if len(reqs) < 2 || !strings.Contains(reqs[1].LastUserText(), `"building"`) {
		p.dump(t)
		t.Fatalf("after the refused stop the model did not read the pinned loop's reason (%d requests)", len(reqs))
	}
	checkPinnedLog(t, logFileEvents(t, p.logPath), buildingReason...)
}

// Each harness caps refused stops of its own: with a loop that would refuse
// 20 times, Copilot CLI honours 8 refusals in a row and ends the turn on the
// 9th, Qwen Code honours 7 and ends on the 8th (its default cap of 8,
// QWEN_CODE_STOP_HOOK_BLOCK_CAP). Either way the binary exits 0. Copilot then
// fires sessionEnd, and hook-loop records the outcome as forced by the
// harness; Qwen Code's -p run fires no SessionEnd, so its refusals stay in the
// log without an outcome (never a completed one).
func TestCopilotCapsRefusedStops(t *testing.T) {
	t.Parallel()
	testCQCap(t, copilotHarness, 9, []string{"forced"})
}

func TestQwenCapsRefusedStops(t *testing.T) { t.Parallel(); testCQCap(t, qwenHarness, 8, nil) }

func testCQCap(t *testing.T, h cqHarness, wantRefusals int, wantOutcomes []string) {
	loopJSON := strings.Replace(cqLoop, `"max_stop_blocks": 3`, `"max_stop_blocks": 20`, 1)
	p := newCQProject(t, h, loopJSON, nil) // every answer: "Nothing more to do."
	if code := p.run(t, "Make sure the project checks pass."); code != 0 {
		p.dump(t)
		t.Errorf("%s exited %d, want 0", h.name, code)
	}
	var refused int
	var outcomes []string
	for _, e := range logFileEvents(t, p.logPath) {
		switch e.EventType {
		case eventlog.TypeStopRefused:
			refused++
		case eventlog.TypeLoopOutcome:
			o, _ := e.Payload["outcome"].(string)
			outcomes = append(outcomes, o)
		}
	}
	if refused != wantRefusals || strings.Join(outcomes, ",") != strings.Join(wantOutcomes, ",") {
		p.dump(t)
		t.Errorf("%d refused stops, outcomes %q; want %d and %q", refused, outcomes, wantRefusals, wantOutcomes)
	}
	if n := len(p.mock.AgentRequests()); n != wantRefusals {
		t.Errorf("the model got %d requests, want %d (one per refused stop it went on from, plus the first)", n, wantRefusals)
	}
}
