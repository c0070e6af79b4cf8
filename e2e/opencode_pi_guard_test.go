package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/testkit/mockmodel/chat"
)

// guardSteps are an agent trying to reconfigure hook-loop and to remove the
// loop file by a glob, then doing real work.
var guardSteps = []chat.Step{
	chat.ToolCall("bash", map[string]any{"command": "command hook-loop opencode uninstall --purge --write; hook-loop pi uninstall --write", "description": "x"}),
	chat.ToolCall("bash", map[string]any{"command": "cd . && rm -f ./*.json", "description": "x"}),
	chat.ToolCall("bash", map[string]any{"command": "echo run-tests ok", "description": "x"}),
	chat.Text("ALL DONE"),
}

// checkGuardRefusals: the two first tool calls got hook-loop's refusals and
// the loop file is still there.
func checkGuardRefusals(t *testing.T, dir string, results []string) {
	t.Helper()
	if len(results) < 2 {
		t.Fatalf("tool results %q, want at least 2", results)
	}
	if !strings.Contains(results[0], "the person's to run") {
		t.Errorf("the model got %q for hook-loop uninstall, want the refusal", results[0])
	}
	if !strings.Contains(results[1], "hook-loop blocked a change to hook-loop.json") {
		t.Errorf("the model got %q for rm -f ./*.json, want the loop-file refusal", results[1])
	}
	if _, err := os.Stat(filepath.Join(dir, "hook-loop.json")); err != nil {
		t.Errorf("hook-loop.json is gone: %v", err)
	}
}

func TestOpencodeAgentCannotUninstallOrDeleteTheLoop(t *testing.T) {
	p := newOCProject(t, guardSteps)
	p.run("clean the project")
	reqs := p.mock.AgentRequests()
	if len(reqs) < 3 {
		p.dump()
		t.Fatalf("the run stopped after %d model requests", len(reqs))
	}
	checkGuardRefusals(t, p.dir, []string{reqs[1].LastToolResult(), reqs[2].LastToolResult()})
}

func TestPiAgentCannotUninstallOrDeleteTheLoop(t *testing.T) {
	t.Parallel()
	p := newPiProject(t, guardSteps)
	_, stderr, code := p.print("clean the project")
	reqs := p.mock.AgentRequests()
	if code != 0 || len(reqs) < 3 {
		p.dump(stderr)
		t.Fatalf("pi exit %d after %d model requests", code, len(reqs))
	}
	checkGuardRefusals(t, p.dir, []string{reqs[1].LastToolResult(), reqs[2].LastToolResult()})
}
