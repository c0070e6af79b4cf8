package hook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/hook"
	"github.com/hook-loop/hook-loop/hook/full"
	"github.com/hook-loop/hook-loop/loop"
	"github.com/hook-loop/hook-loop/project/roster"
)

// plainAdapter is a minimal harness: input {"event","session","prompt","command","exit"};
// output "<action>:<reason>" so tests can read decisions.
type plainAdapter struct{}

func (plainAdapter) Harness() string { return "plain" }
func (plainAdapter) Decode(event string, input []byte) (loop.HookEvent, error) {
	var in struct {
		Event, Session, Prompt, Command string
		Exit                            *int
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return loop.HookEvent{Name: event}, fmt.Errorf("not JSON: %w", err)
	}
	if event == "" {
		event = in.Event
	}
	ev := loop.HookEvent{Name: event, SessionID: in.Session, Prompt: in.Prompt, Command: in.Command}
	if in.Command != "" {
		ev.ToolName = "Bash"
	}
	if event == loop.EventPostToolUse {
		ev.Result = &loop.ToolResult{ExitCode: in.Exit}
	}
	return ev, nil
}
func (plainAdapter) Encode(ev loop.HookEvent, d loop.Decision) harness.Output {
	return harness.Output{Stdout: []byte(string(d.Action) + ":" + d.Reason), Stderr: []byte(d.SystemMessage)}
}

const dsl = `{"loop": {"id": "t", "initial_state": "a", "states": ["a", "done", "stopped"],
 "events": ["go"], "transitions": [{"from": "a", "event": "go", "to": "done"}] %s},
 "codex": {"event_map": [{"codex_event": "PostToolUse", "when": {"command_match": "make", "exit_code": 0}, "emit": "go"}]}}`

func project(t *testing.T, extra string) string {
	t.Helper()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "hook-loop.json"), []byte(fmt.Sprintf(dsl, extra)), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

func run(t *testing.T, root, cwd, event, input string, record bool) harness.Output {
	t.Helper()
	return hook.New(hook.Deps{}).Run(context.Background(), hook.Request{
		Adapter: plainAdapter{}, Flags: hook.Flags{Event: event, Record: record}, Stdin: strings.NewReader(input), Cwd: cwd,
	})
}

func TestFindsProjectFromSubdirectory(t *testing.T) {
	root := project(t, "")
	sub := filepath.Join(root, "pkg", "deep")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	out := run(t, root, sub, "Stop", `{"session":"s"}`, false)
	if !strings.HasPrefix(string(out.Stdout), "block:") {
		t.Fatalf("stop from a subdirectory: %q / %q", out.Stdout, out.Stderr)
	}
	if _, err := os.Stat(filepath.Join(root, ".hook-loop", "events.jsonl")); err != nil {
		t.Fatalf("log not at the project root: %v", err)
	}
	if _, err := os.Stat(filepath.Join(sub, ".hook-loop")); err == nil {
		t.Fatal("a log was created in the subdirectory")
	}
}

// Bad input refuses a stop (a failure must never open the gate) and lets
// every other event of a fail-open loop proceed, saying why in one line.
func TestBadInputRefusesTheStopWithOneLine(t *testing.T) {
	t.Setenv(eventlog.StateDirEnv, t.TempDir())
	root := project(t, "")
	for name, in := range map[string]string{"empty": "", "blank": "  \n", "not json": "{nope", "truncated": `{"session":`} {
		out := run(t, root, root, "Stop", in, false)
		if !strings.HasPrefix(string(out.Stdout), "block:") || !strings.Contains(string(out.Stdout), "hook-loop cancel") {
			t.Errorf("%s: %q, want the stop refused, naming the way out", name, out.Stdout)
		}
		if out := run(t, root, root, "PreToolUse", in, false); !strings.HasPrefix(string(out.Stdout), "allow:") {
			t.Errorf("%s: tool call %q, want allow (the loop is not fail_closed)", name, out.Stdout)
		}
		if lines := strings.Count(strings.TrimSpace(string(out.Stderr)), "\n"); lines > 1 || !strings.Contains(string(out.Stderr), "hook-loop:") {
			t.Errorf("%s: stderr %q", name, out.Stderr)
		}
	}
}

func TestOversizedInputIsRefusedSayingSo(t *testing.T) {
	root := project(t, "")
	big := `{"session":"s","prompt":"` + strings.Repeat("x", hook.MaxInput) + `"}`
	out := run(t, root, root, "UserPromptSubmit", big, false)
	if !strings.HasPrefix(string(out.Stdout), "allow:") || !strings.Contains(string(out.Stderr), "cap") {
		t.Fatalf("oversized: %q / %q", out.Stdout[:min(len(out.Stdout), 50)], out.Stderr)
	}
}

func TestFailClosedRefusesStopOnError(t *testing.T) {
	root := project(t, `, "fail_closed": true`)
	out := run(t, root, root, "PreToolUse", "{nope", false)
	if !strings.HasPrefix(string(out.Stdout), "block:") || !strings.Contains(string(out.Stdout), "fail_closed") {
		t.Fatalf("fail_closed tool call on bad input: %q", out.Stdout)
	}
	// A broken loop file that asks to fail closed still does.
	os.WriteFile(filepath.Join(root, "hook-loop.json"), []byte(`{"loop": {"fail_closed": true, "id": 3}}`), 0o644)
	out = run(t, root, root, "PreToolUse", `{"session":"s","command":"ls"}`, false)
	if !strings.HasPrefix(string(out.Stdout), "block:") {
		t.Fatalf("fail_closed with a broken loop: %q / %q", out.Stdout, out.Stderr)
	}
	// Prompts are never refused for an internal error.
	out = run(t, root, root, "UserPromptSubmit", `{"session":"s"}`, false)
	if !strings.HasPrefix(string(out.Stdout), "allow:") {
		t.Fatalf("prompt with a broken fail_closed loop: %q", out.Stdout)
	}
}

// Where hook-loop was never set up (no loop file, none named, no log), nothing
// is gated: the stop proceeds.
func TestMissingLoopFileFailsOpen(t *testing.T) {
	root := t.TempDir()
	out := run(t, root, root, "Stop", `{"session":"s"}`, false)
	if !strings.HasPrefix(string(out.Stdout), "allow:") || !strings.Contains(string(out.Stderr), "hook-loop.json") {
		t.Fatalf("missing loop: %q / %q", out.Stdout, out.Stderr)
	}
}

func TestRecordKeepsRawInputAndExitCode(t *testing.T) {
	root := project(t, "")
	run(t, root, root, "PostToolUse", `{"session":"s","command":"make","exit":0}`, true)
	data, err := os.ReadFile(filepath.Join(root, ".hook-loop", "trace.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var line hook.TraceLine
	if err := json.Unmarshal(bytes.TrimSpace(data), &line); err != nil {
		t.Fatalf("trace line: %v (%s)", err, data)
	}
	if line.Event != "PostToolUse" || line.ExitCode == nil || *line.ExitCode != 0 || !strings.Contains(string(line.Input), `"make"`) {
		t.Fatalf("trace line: %+v", line)
	}
	out := run(t, root, root, "Stop", `{"session":"s"}`, false)
	if !strings.HasPrefix(string(out.Stdout), "allow:") {
		t.Fatalf("stop after the loop finished: %q", out.Stdout)
	}
}

func TestModePrecedence(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == hook.ModeEnv {
				return v
			}
			return ""
		}
	}
	for _, c := range []struct{ env, flag, want string }{
		{"", "", ""},               // the loop file's loop.mode
		{"", "warn", "warn"},       // the install's --mode
		{"audit", "warn", "audit"}, // HOOK_LOOP_MODE wins
		{" enforce ", "", "enforce"},
	} {
		if got := hook.Mode(env(c.env), c.flag); got != c.want {
			t.Errorf("Mode(env %q, flag %q) = %q, want %q", c.env, c.flag, got, c.want)
		}
	}
}

// A tool call that writes the lifecycle declaration or an executor it names is
// refused through the hook path: the executors come from the declaration the
// hook loaded, not from a second read of it.
func TestHookProtectsTheLifecycleExecutors(t *testing.T) {
	t.Setenv(eventlog.StateDirEnv, t.TempDir())
	root := project(t, "")
	cfgDir := t.TempDir()
	exe := filepath.Join(cfgDir, "check.sh")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\necho null\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	decl := filepath.Join(cfgDir, "hooks.json")
	if err := os.WriteFile(decl, []byte(`{"hooks": [{"name": "check", "command": ["./check.sh"], "on": ["phase_changed"]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	pre := func(cmd string) string {
		in, _ := json.Marshal(map[string]string{"session": "s", "command": cmd})
		out := hook.New(full.Deps(hook.Deps{})).Run(context.Background(), hook.Request{Adapter: plainAdapter{},
			Flags: hook.Flags{Event: "PreToolUse", HooksConfig: decl}, Stdin: strings.NewReader(string(in)), Cwd: root})
		return string(out.Stdout)
	}
	for _, cmd := range []string{"rm " + exe, "echo x > " + decl} {
		if got := pre(cmd); !strings.HasPrefix(got, "block:") {
			t.Errorf("%s: %q, want a refusal", cmd, got)
		}
	}
	if got := pre("rm -f " + filepath.Join(cfgDir, "other.txt")); strings.HasPrefix(got, "block:") {
		t.Errorf("a file the declaration does not name was refused: %q", got)
	}
}

// TestHookProtectsTheHookBinaries: the binary answering the hook and its
// sibling are protected files: replaced by `exit 0`, every hook would allow.
func TestHookProtectsTheHookBinaries(t *testing.T) {
	t.Setenv(eventlog.StateDirEnv, t.TempDir())
	root := project(t, "")
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	dir := filepath.Dir(exe)
	for _, cmd := range []string{
		"cp /bin/true " + filepath.Join(dir, "hook-loop-hook"), "chmod 000 " + exe,
		"printf '#!/bin/sh\\nexit 0\\n' > " + filepath.Join(dir, "hook-loop"), "ln -sf /bin/true " + filepath.Join(dir, "hook-loop-hook"),
	} {
		in, _ := json.Marshal(map[string]string{"session": "s", "command": cmd})
		if got := string(run(t, root, root, "PreToolUse", string(in), false).Stdout); !strings.HasPrefix(got, "block:") {
			t.Errorf("%s: %q, want a refusal", cmd, got)
		}
	}
}

// A hook registers its project in the user's registry for `--all`; a
// registry that cannot be written changes nothing in the hook's answer.
func TestHookRegistersItsProject(t *testing.T) {
	state := t.TempDir()
	t.Setenv(eventlog.StateDirEnv, state)
	root := project(t, "")
	run(t, root, root, "SessionStart", `{"session":"s"}`, false)
	got, _, err := roster.List(state)
	if err != nil || len(got) != 1 || got[0].Root != root || got[0].Log != filepath.Join(root, ".hook-loop", "events.jsonl") {
		t.Fatalf("registry after a hook: %+v, %v", got, err)
	}

	// The registry's folder is a file: registering fails, the hook does not.
	t.Setenv(eventlog.StateDirEnv, t.TempDir())
	root2 := project(t, "")
	want := run(t, root2, root2, "Stop", `{"session":"s"}`, false)
	broken := t.TempDir()
	t.Setenv(eventlog.StateDirEnv, broken)
	if err := os.WriteFile(filepath.Join(broken, roster.Dir), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	root3 := project(t, "")
	got3 := run(t, root3, root3, "Stop", `{"session":"s"}`, false)
	if string(got3.Stdout) != string(want.Stdout) || !strings.HasPrefix(string(want.Stdout), "block:") {
		t.Fatalf("with an unwritable registry the stop was answered %q (stderr %q), want %q", got3.Stdout, got3.Stderr, want.Stdout)
	}
}

// A --state the hook does not know is a failure (the stop refused, one line
// naming it), never a quiet fall-back to the project's log while `status`
// and the board read the user's.
func TestUnknownStateIsAFailure(t *testing.T) {
	t.Setenv(eventlog.StateDirEnv, t.TempDir())
	root := project(t, "")
	out := hook.New(hook.Deps{}).Run(context.Background(), hook.Request{
		Adapter: plainAdapter{}, Flags: hook.Flags{Event: "Stop", State: "usr"}, Stdin: strings.NewReader(`{"session":"s"}`), Cwd: root,
	})
	if !strings.HasPrefix(string(out.Stdout), "block:") || !strings.Contains(string(out.Stderr), `--state "usr"`) {
		t.Fatalf("--state usr: %q / %q, want the stop refused naming the flag", out.Stdout, out.Stderr)
	}
	if _, err := os.Stat(filepath.Join(root, ".hook-loop", "events.jsonl")); err == nil {
		t.Fatal("a log was written in the project for an unknown --state")
	}
}
