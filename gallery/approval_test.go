package gallery

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/hook-loop/hook-loop/loop"
	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/loop/session"
)

// TestApprovalGateRejectionPath walks approval_gate through a rejection, a
// revision and a second request to approval; the recorded traces cover only the
// approving path.
func TestApprovalGateRejectionPath(t *testing.T) {
	raw, err := Get("approval_gate")
	if err != nil {
		t.Fatal(err)
	}
	spec, _, err := dsl.Parse("approval_gate.json", raw)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	log := session.Open(filepath.Join(root, ".hook-loop", "events.jsonl"))
	eng := &engine.Engine{Spec: spec, Root: root}
	step := func(ev loop.HookEvent, wantState string) loop.Decision {
		t.Helper()
		ev.SessionID, ev.Harness, ev.Cwd = "s", "test", root
		var d loop.Decision
		if err := log.Update(func(tx session.Tx) error {
			var herr error
			d, herr = eng.Handle(context.Background(), tx, ev)
			return herr
		}); err != nil {
			t.Fatal(err)
		}
		if d.State != wantState {
			t.Fatalf("%s: state %s, want %s", ev.Name, d.State, wantState)
		}
		return d
	}
	write := loop.HookEvent{Name: loop.EventPostToolUse, ToolName: "Write", TargetPaths: []string{filepath.Join(root, "PROPOSAL.md")}}
	step(loop.HookEvent{Name: loop.EventUserPromptSubmit, Prompt: "draft a proposal"}, "drafting")
	step(write, "drafting")
	if d := step(loop.HookEvent{Name: loop.EventStop, LastAssistantMessage: "Draft written. APPROVAL REQUESTED"}, "pending_approval"); d.Action == loop.Block {
		t.Fatalf("the agent may stop while the loop waits for a person: %s", d.Reason)
	}
	if d := step(loop.HookEvent{Name: loop.EventPreToolUse, ToolName: "Write", TargetPaths: write.TargetPaths}, "pending_approval"); d.Action != loop.Block {
		t.Fatal("the draft was editable while waiting for approval")
	}
	step(loop.HookEvent{Name: loop.EventUserPromptSubmit, Prompt: `"rejected: needs a budget section"`}, "rejected")
	step(write, "drafting")
	step(loop.HookEvent{Name: loop.EventStop, LastAssistantMessage: "APPROVAL REQUESTED again"}, "pending_approval")
	step(loop.HookEvent{Name: loop.EventUserPromptSubmit, Prompt: "approved"}, "approved")
	if d := step(loop.HookEvent{Name: loop.EventStop, LastAssistantMessage: "ok"}, "approved"); d.Action != loop.Block {
		t.Fatal("stop allowed before finalizing")
	}
	step(loop.HookEvent{Name: loop.EventPostToolUse, ToolName: "Bash", Command: "git commit -m proposal",
		Result: &loop.ToolResult{ExitCode: loop.IntPtr(0)}}, "done")
}
