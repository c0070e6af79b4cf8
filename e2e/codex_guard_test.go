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
