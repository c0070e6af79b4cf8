package gemini

import (
	"strings"

	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/loop"
)

// output is the JSON object a Gemini CLI command hook prints on stdout (exit
// 0); Gemini CLI 0.61 acts on each of its fields. Decision "deny" refuses: a
// BeforeTool's call (the model reads "Tool execution blocked: <reason>"), an
// AfterAgent's stop (the reason goes back to the model as the next prompt), a
// BeforeAgent's prompt, an AfterTool's result ("Tool result blocked:
// <reason>"). Continue false ends the agent's run (shouldStopExecution).
type output = harness.CommandAnswer[hookSpecificOutput]

// hookSpecificOutput.additionalContext is honoured by SessionStart (prepended
// to the first prompt), BeforeAgent (added to the prompt) and AfterTool
// (appended to the tool's result), each wrapped in <hook_context>.
type hookSpecificOutput struct {
	HookEventName     string `json:"hookEventName"`
	AdditionalContext string `json:"additionalContext,omitempty"`
}

// Encode renders d for ev. Every answer exits 0 with JSON: exit 2 would make
// stderr the reason, and any other failure (exit 1, a timeout) lets Gemini CLI
// go on as if no hook ran. hook-loop never prints an explicit "allow".
func (Adapter) Encode(ev loop.HookEvent, d loop.Decision) harness.Output {
	native, reason := harness.NativeEvent(ev), harness.BlockReason(d, harness.RefusedReason)
	o := output{SystemMessage: d.SystemMessage}
	ctx := d.Context
	switch native {
	case NativeBeforeTool, loop.EventPreToolUse:
		// BeforeTool takes no additionalContext in 0.61: a note for the model
		// on an allowed call has no channel.
		if d.Action == loop.Block {
			o.Decision, o.Reason = "deny", reason
		}
	case NativeAfterAgent, loop.EventStop:
		// A stop has no channel for context without refusing it.
		if d.Action == loop.Block {
			o.Decision, o.Reason = "deny", StopMark+strings.TrimPrefix(reason, "hook-loop: ")
		}
	case NativeBeforeAgent, loop.EventUserPromptSubmit, NativeAfterTool, loop.EventPostToolUse, NativeSessionStart:
		switch {
		case d.Action != loop.Block:
		case native == NativeSessionStart:
			// SessionStart cannot refuse: the person is told.
			o.SystemMessage = harness.JoinMessages(o.SystemMessage, reason)
		default:
			o.Decision, o.Reason = "deny", reason
		}
		if ctx != "" {
			o.HookSpecificOutput = &hookSpecificOutput{HookEventName: native, AdditionalContext: ctx}
		}
	default:
		// PreCompress, SessionEnd, hook-loop's own continuation: nothing to
		// refuse or steer; the person still gets the reason.
		if d.Action == loop.Block {
			o.SystemMessage = harness.JoinMessages(o.SystemMessage, reason)
		}
	}
	return o.Answer(d, reason, "gemini")
}
