package copilot

import (
	"strings"

	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/loop"
)

// output is the JSON object a Copilot CLI command hook prints on stdout: only
// the fields its records show it honours; empty ones are omitted, so an allow
// prints nothing.
type output struct {
	// preToolUse: "deny" keeps the tool from running; the model reads
	// "Denied by preToolUse hook: <reason>" as the tool's result.
	PermissionDecision       string `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
	// agentStop, subagentStop: "block" keeps the agent working; the reason
	// comes back as its next prompt (a new userPromptSubmitted).
	Decision string `json:"decision,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// Encode renders d for ev. Every answer exits 0 with JSON on stdout. Only a
// tool call and a stop can be refused; Copilot offers no recorded channel
// for text to the model elsewhere, so a refusal of another event, and any
// context or message for the person, goes to stderr, which Copilot logs.
func (Adapter) Encode(ev loop.HookEvent, d loop.Decision) harness.Output {
	reason := harness.BlockReason(d, harness.RefusedReason)
	var o output
	var note []string
	switch {
	case d.Action != loop.Block:
	case ev.NativeName == EventPreToolUse:
		o.PermissionDecision, o.PermissionDecisionReason = "deny", reason
	case ev.NativeName == EventAgentStop || ev.NativeName == EventSubagentStop:
		o.Decision, o.Reason = "block", reason
	default:
		note = append(note, reason)
	}
	for _, s := range []string{d.Context, d.SystemMessage} {
		if s != "" {
			note = append(note, s)
		}
	}
	var out harness.Output
	if len(note) > 0 {
		out.Stderr = []byte("hook-loop: " + strings.Join(note, "\n") + "\n")
	}
	if o == (output{}) {
		return out
	}
	enc := harness.JSONOutput(o, "copilot")
	out.Stdout, out.Stderr = enc.Stdout, append(out.Stderr, enc.Stderr...)
	return out
}
