package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/scaffold"
	"github.com/hook-loop/hook-loop/testkit/mockmodel/messages"
)

// TestClaudeAgentCannotUninstallOrDeleteTheLoop: the agent running hook-loop
// uninstall (by a link with another name) or deleting the loop file by a glob
// is refused at PreToolUse, and the install and the loop are still there
// afterwards.
func TestClaudeAgentCannotUninstallOrDeleteTheLoop(t *testing.T) {
	t.Parallel()
	p := newClaudeProject(t, nil)
	alias := filepath.Join(t.TempDir(), "hl")
	if err := os.Symlink(hookLoopBinary(t), alias); err != nil {
		t.Fatal(err)
	}
	r := p.run(t, messages.Script{Steps: []messages.Step{
		writePlan,
		messages.Bash(scaffold.ShellQuote(alias) + " claude uninstall --purge --write"),
		messages.Bash("rm -f *.json"),
		messages.Bash("make test"),
		messages.Text("ALL STEPS PASS"),
	}}, "Add a greeting feature")
	if r.exit != 0 {
		t.Fatalf("claude exit %d", r.exit)
	}
	for _, f := range []string{"hook-loop.json", ".claude/settings.json"} {
		if _, err := os.Stat(filepath.Join(p.dir, f)); err != nil {
			t.Errorf("%s is gone: %v", f, err)
		}
	}
	main := r.mock.MainRequests()
	if len(main) < 4 {
		t.Fatalf("model got %d main requests, want at least 4", len(main))
	}
	for i, want := range map[int]string{2: "the person's to run", 3: "hook-loop.json"} {
		tr := toolResults(main[i])
		if len(tr) != 1 || !tr[0].IsError || !strings.Contains(tr[0].Text, want) {
			t.Errorf("request %d: the model got %+v, want a denial saying %q", i, tr, want)
		}
	}
}
