package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	hlcli "github.com/hook-loop/hook-loop/cli"
	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/gallery"
	"github.com/hook-loop/hook-loop/version"
)

// fakeExec records what run would exec instead of replacing the test process.
type fakeExec struct {
	path string
	argv []string
	// unread is what was left of stdin when exec was called.
	unread int
	in     *bytes.Reader
}

func (f *fakeExec) exec(path string, argv, _ []string) error {
	f.path, f.argv = path, argv
	if f.in != nil {
		f.unread = f.in.Len()
	}
	return errExeced
}

var errExeced = errors.New("exec'd (test)")

// project writes the plan_execute loop into a fresh project and returns the
// hook arguments for event there.
func project(t *testing.T, event string) (args []string, payload []byte) {
	t.Helper()
	dsl, err := gallery.Get("plan_execute")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "hook-loop.json")
	if err := os.WriteFile(cfg, dsl, 0o644); err != nil {
		t.Fatal(err)
	}
	payload, err = os.ReadFile(filepath.Join("..", "..", "testdata", "bench", "codex", event+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return []string{"codex-hook", "--event", event, "--config", cfg, "--event-log", filepath.Join(dir, ".hook-loop", "events.jsonl")}, payload
}

// isolate gives the test its own state and user config folders.
func isolate(t *testing.T) (cfgHome string) {
	t.Setenv(eventlog.StateDirEnv, t.TempDir())
	cfgHome = t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfgHome)
	t.Setenv("HOOK_LOOP_CONFIG", "")
	t.Setenv("HOOK_LOOP_STORE", "")
	return cfgHome
}

func lean(args []string, in []byte, x *fakeExec, self string) (code int, out, errOut string) {
	var o, e bytes.Buffer
	code = run(env{args: append([]string{"hook-loop-hook"}, args...), in: bytes.NewReader(in), out: &o, errOut: &e,
		getenv: os.Getenv, exec: x.exec, executable: func() (string, error) { return self, nil }})
	return code, o.String(), e.String()
}

func full(args []string, in []byte) (code int, out, errOut string) {
	var o, e bytes.Buffer
	code = hlcli.Main(append([]string{"hook-loop"}, args...), bytes.NewReader(in), &o, &e)
	return code, o.String(), e.String()
}

// The lean binary answers every Codex event exactly as `hook-loop codex-hook`
// does, on two projects driven through the same events.
func TestLeanAnswersAsHookLoop(t *testing.T) {
	isolate(t)
	for _, event := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "Stop"} {
		la, payload := project(t, event)
		fa, _ := project(t, event)
		x := &fakeExec{}
		lc, lo, le := lean(la, payload, x, "/nonexistent/hook-loop-hook")
		fc, fo, fe := full(fa, payload)
		if x.path != "" {
			t.Fatalf("%s: handed to %s, want it run here", event, x.path)
		}
		strip := func(s string, a []string) string { return strings.ReplaceAll(s, filepath.Dir(a[4]), "DIR") }
		if lc != fc || strip(lo, la) != strip(fo, fa) || strip(le, la) != strip(fe, fa) {
			t.Errorf("%s:\nlean %d %q %q\nfull %d %q %q", event, lc, lo, le, fc, fo, fe)
		}
		if lo == "" && event == "Stop" {
			t.Errorf("Stop answered nothing")
		}
	}
}

// What needs hook-loop is handed to it before stdin is read, with the same
// arguments: a database store, a user config (lifecycle hooks, "store"), and
// every command but the hooks.
func TestLeanHandsOnWhatItDoesNotCarry(t *testing.T) {
	cfgHome := isolate(t)
	dir := t.TempDir()
	self := filepath.Join(dir, "hook-loop-hook")
	fullBin := filepath.Join(dir, "hook-loop")
	if err := os.WriteFile(fullBin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	hook, payload := project(t, "Stop")
	cases := []struct {
		name  string
		args  []string
		setup func()
	}{
		{"--store", append(append([]string{}, hook...), "--store", "postgres://db/x"), nil},
		{"HOOK_LOOP_STORE", hook, func() { t.Setenv("HOOK_LOOP_STORE", "postgres://db/x") }},
		{"--hooks-config", append(append([]string{}, hook...), "--hooks-config", "/nowhere/hooks.yaml"), nil},
		{"HOOK_LOOP_CONFIG", hook, func() { t.Setenv("HOOK_LOOP_CONFIG", "/nowhere/hooks.yaml") }},
		{"user config.yaml", hook, func() {
			if err := os.MkdirAll(filepath.Join(cfgHome, "hook-loop"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(cfgHome, "hook-loop", "config.yaml"), []byte("hooks: []\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"status", []string{"status"}, nil},
		{"codex install", []string{"codex", "install", "--write"}, nil},
		{"hook --help", []string{"codex-hook", "--help"}, nil},
		{"unknown hook flag", []string{"codex-hook", "--nope"}, nil},
		{"no command", nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.setup != nil {
				c.setup()
			}
			in := bytes.NewReader(payload)
			x := &fakeExec{in: in}
			var o, e bytes.Buffer
			run(env{args: append([]string{"hook-loop-hook"}, c.args...), in: in, out: &o, errOut: &e,
				getenv: os.Getenv, exec: x.exec, executable: func() (string, error) { return self, nil }})
			if x.path != fullBin || strings.Join(x.argv, " ") != strings.Join(append([]string{fullBin}, c.args...), " ") {
				t.Errorf("exec %q %q, want %s with the same arguments", x.path, x.argv, fullBin)
			}
			if x.unread != len(payload) {
				t.Errorf("stdin read before handing on (%d of %d bytes left)", x.unread, len(payload))
			}
		})
	}
}

// Without hook-loop beside it, a hook that needed it still answers, per the
// loop's fail_closed, and says why; any other command fails with one line.
func TestLeanWithoutHookLoop(t *testing.T) {
	isolate(t)
	hook, payload := project(t, "Stop")
	x := &fakeExec{}
	code, out, errOut := lean(append(hook, "--store", "postgres://ann:pw@db.example/x"), payload, x, filepath.Join(t.TempDir(), "hook-loop-hook"))
	if x.path != "" {
		t.Fatalf("exec'd %s, but there is no hook-loop", x.path)
	}
	if code != 0 || out == "" {
		t.Errorf("no answer: %d %q", code, out)
	}
	if !strings.Contains(errOut, "hook-loop-hook: this hook needs hook-loop") || !strings.Contains(errOut, "no PostgreSQL driver") || strings.Contains(errOut, "pw@") {
		t.Errorf("stderr %q: want why, without the password", errOut)
	}
	code, _, errOut = lean([]string{"status"}, nil, x, filepath.Join(t.TempDir(), "hook-loop-hook"))
	if code != 2 || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, "hook-loop") {
		t.Errorf("status without hook-loop: %d %q, want 2 and one line", code, errOut)
	}
}

func TestLeanVersion(t *testing.T) {
	code, out, _ := lean([]string{"--version"}, nil, &fakeExec{}, "")
	if code != 0 || out != "hook-loop version "+version.String()+"\n" {
		t.Errorf("--version: %d %q", code, out)
	}
	code, out, _ = lean([]string{"--build"}, nil, &fakeExec{}, "")
	if code != 0 || out != version.Build()+"\n" {
		t.Errorf("--build: %d %q", code, out)
	}
}

// The lean binary links nothing a hook does not use.
func TestLeanImportGraph(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not on PATH: cannot list the import graph")
	}
	out, err := exec.Command(goBin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	forbidden := []string{"github.com/urfave/cli/v2", "github.com/hook-loop/hook-loop/cli/cmdutil", "github.com/hook-loop/hook-loop/scaffold",
		"github.com/hook-loop/hook-loop/templates", "text/template", "html/template", "github.com/pelletier/go-toml/v2", "github.com/tidwall/sjson",
		"net/http", "crypto/tls", "crypto/x509", "github.com/jackc/pgx/v5", "go.yaml.in/yaml/v3", "github.com/hook-loop/hook-loop/lifecycle",
		"github.com/hook-loop/hook-loop/eventlog/postgres", "github.com/hook-loop/hook-loop/hook/full"}
	for _, p := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if p == f || strings.HasPrefix(p, f+"/") {
				t.Errorf("hook-loop-hook links %s", p)
			}
		}
	}
}
