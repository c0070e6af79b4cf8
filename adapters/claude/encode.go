package claude

import (
	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/loop"
)

// hookSpecificOutput must always carry hookEventName, equal to the event Claude
// fired (experiments pre_no_event_name, pre_wrong_event_name: otherwise the whole
// output is rejected and the tool runs).
type hookSpecificOutput struct {
	HookEventName            string              `json:"hookEventName"`
	PermissionDecision       string              `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string              `json:"permissionDecisionReason,omitempty"`
	Decision                 *permissionDecision `json:"decision,omitempty"`
	AdditionalContext        string              `json:"additionalContext,omitempty"`
}

// permissionDecision is PermissionRequest's own answer shape
// (experiments permreq_allow, permreq_deny).
type permissionDecision struct {
	Behavior string `json:"behavior"`
	Message  string `json:"message,omitempty"`
}

// output is the JSON object a Claude Code command hook prints on stdout.
// Only the fields Claude Code 2.1 honours are there; continue:false ends the
// session without another model call (captured: experiments
// stop_continue_false, pre_continue_false).
type output = harness.CommandAnswer[hookSpecificOutput]

// Encode renders d for ev. Every answer exits 0: a refusal is carried by the JSON
// (never exit 2 together with JSON), and hook-loop never prints an explicit
// "allow", which would bypass the user's own permission settings.
func (Adapter) Encode(ev loop.HookEvent, d loop.Decision) harness.Output {
	native, reason := harness.NativeEvent(ev), harness.BlockReason(d, harness.RefusedReason)
	o := output{SystemMessage: d.SystemMessage}
	ctx := d.Context
	if d.Action == loop.Block || d.Action == loop.Steer || ctx != "" {
		switch native {
		case loop.EventPreToolUse:
			hs := &hookSpecificOutput{HookEventName: native, AdditionalContext: ctx}
			if d.Action == loop.Block {
				hs.PermissionDecision = "deny"
				hs.PermissionDecisionReason = reason
			}
			if hs.PermissionDecision != "" || hs.AdditionalContext != "" {
				o.HookSpecificOutput = hs
			}
		case loop.EventPermissionRequest:
			// PermissionRequest honours neither additionalContext nor a reason
			// for the model outside a denial; context is dropped here.
			if d.Action == loop.Block {
				o.HookSpecificOutput = &hookSpecificOutput{HookEventName: native,
					Decision: &permissionDecision{Behavior: "deny", Message: reason}}
			}
		case loop.EventStop, loop.EventSubagentStop:
			// A stop has no channel for context without refusing it: a steer
			// that lets the agent stop says nothing to the model.
			if d.Action == loop.Block {
				o.Decision, o.Reason = "block", reason
			}
		case loop.EventUserPromptSubmit, loop.EventPostToolUse, EventPostToolUseFailure:
			if d.Action == loop.Block {
				o.Decision, o.Reason = "block", reason
			}
			if ctx != "" {
				o.HookSpecificOutput = &hookSpecificOutput{HookEventName: native, AdditionalContext: ctx}
			}
		case loop.EventSessionStart:
			if ctx != "" {
				o.HookSpecificOutput = &hookSpecificOutput{HookEventName: native, AdditionalContext: ctx}
			}
			if d.Action == loop.Block {
				o.SystemMessage = harness.JoinMessages(o.SystemMessage, reason)
			}
		default:
			// PreCompact, PostCompact, SessionEnd: Claude Code offers no way to
			// refuse or steer here; the person still gets the reason.
			if d.Action == loop.Block {
				o.SystemMessage = harness.JoinMessages(o.SystemMessage, reason)
			}
		}
	}
	return o.Answer(d, reason, "claude")
}
