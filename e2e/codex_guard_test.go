package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/testkit/mockmodel/responses"
)

// TestCodexAgentCannotUninstallOrDeleteTheLoop: the agent running hook-loop
// uninstall through env, or removing the loop file by brace expansion, is
// refused at PreToolUse; the hooks and the loop are still there afterwards.
func TestCodexAgentCannotUninstallOrDeleteTheLoop(t *testing.T) {
	t.Parallel()
	p := newCodexProject(t, responses.Options{Steps: []responses.Step{
		{Patch: planPatch},
		{Command: "env HOME=/tmp hook-loop codex uninstall --purge --write"},
		{Command: "mv hook-loop.json{,.bak}"},
		{Command: "make test"},
		{Message: "ALL STEPS PASS"},
	}}, nil)
	r := p.exec(t, "Add a greeting feature")
	r.dump(t)
	if r.exit != 0 {
		t.Fatalf("codex exec exit %d", r.exit)
	}
	for _, f := range []string{"hook-loop.json", ".codex/hooks.json"} {
		if _, err := os.Stat(filepath.Join(p.dir, f)); err != nil {
			t.Errorf("%s is gone: %v", f, err)
		}
	}
	for i, want := range map[int]string{2: "the person's to run", 3: "hook-loop.json"} {
		var out string
		for _, m := range r.received(i) {
			if m.Type == "function_call_output" {
				out = m.Text
			}
		}
		if !strings.HasPrefix(out, "Command blocked by PreToolUse hook: ") || !strings.Contains(out, want) {
			t.Errorf("request %d: the model received %q, want a refusal saying %q", i, out, want)
		}
	}
}

// TestCodexLongCallKeepsItsWorkdir: with the real binary, a shell call
// whose rollout line is longer than the tail the adapter first reads keeps
// its workdir (the read grows with the call) and is not refused as unseen:
// writing hooks.json from .codex is refused as a loop file.
func TestCodexLongCallKeepsItsWorkdir(t *testing.T) {
	t.Parallel()
	p := newCodexProject(t, responses.Options{Steps: []responses.Step{
		{Patch: planPatch},
		{Function: &responses.FunctionCall{Name: "exec_command", Arguments: map[string]any{"cmd": "echo {} > hooks.json #" + strings.Repeat("x", 100<<10) + strings.Repeat(`"`, 50<<10), "workdir": ".codex"}}},
		{Message: "ALL STEPS PASS"},
	}}, nil)
	r := p.exec(t, "Add a greeting feature")
	r.dump(t)
	if r.exit != 0 {
		t.Fatalf("codex exec exit %d", r.exit)
	}
	var out string
	for _, m := range r.received(2) {
		if m.Type == "function_call_output" {
			out = m.Text
		}
	}
	if !strings.HasPrefix(out, "Command blocked by PreToolUse hook: ") || !strings.Contains(out, ".codex/hooks.json") || strings.Contains(out, "could not be read") {
		t.Errorf("the model received %.300q, want a refusal naming .codex/hooks.json", out)
	}
	if b, err := os.ReadFile(filepath.Join(p.dir, ".codex", "hooks.json")); err != nil || strings.TrimSpace(string(b)) == "{}" {
		t.Errorf(".codex/hooks.json was overwritten: %q, %v", b, err)
	}
}
