package codex

import (
	"encoding/json"
	"strings"

	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/loop"
)

// defaultReason is used when a block carries no reason: Codex rejects a block
// without a non-empty reason and then fails open.
const defaultReason = "blocked by hook-loop"

// contextEvent: the events whose output schema has
// hookSpecificOutput.additionalContext. (A switch, unlike a package-level
// map, costs the hook nothing at start-up.)
func contextEvent(native string) bool {
	switch native {
	case "SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "SubagentStart":
		return true
	}
	return false
}

// blockEvent: the events that accept the top-level
// {"decision":"block","reason":R} form.
func blockEvent(native string) bool {
	switch native {
	case "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SubagentStop":
		return true
	}
	return false
}

// Encode implements harness.Adapter. It prints nothing at all when there is
// nothing to say (an explicit "allow" would override Codex's own permission
// rules), always exits 0 (exit 2 with an empty stderr fails open), and only ever
// writes fields the event's output schema declares (Codex rejects unknown fields
// and then fails open).
func (a *Adapter) Encode(ev loop.HookEvent, d loop.Decision) harness.Output {
	native := harness.NativeEvent(ev)
	out := map[string]any{}
	if native == "SessionEnd" {
		// SessionEnd has no output schema: Codex reads nothing back.
		return harness.Output{}
	}
	if d.SystemMessage != "" {
		out["systemMessage"] = d.SystemMessage
	}
	switch d.Action {
	case loop.Block:
		reason := harness.BlockReason(d, defaultReason)
		switch {
		case native == "PermissionRequest":
			// PermissionRequest has no top-level decision; its deny lives in
			// hookSpecificOutput and the message reaches the model as the
			// rejection text.
			out["hookSpecificOutput"] = map[string]any{
				"hookEventName": "PermissionRequest",
				"decision":      map[string]any{"behavior": "deny", "message": reason},
			}
		case blockEvent(native):
			if native == "PreToolUse" {
				// Codex tells the model "Command blocked by PreToolUse hook: R.
				// Command: …": a final period of R would be doubled.
				if r := strings.TrimRight(reason, ". "); r != "" {
					reason = r
				}
			}
			out["decision"] = "block"
			out["reason"] = reason
		case native == "SessionStart":
			// Refusing a session (a lifecycle hook said proceed: false) can only
			// end it: Codex stops with status Stopped and runs no turn.
			out["continue"] = false
			out["stopReason"] = reason
		default:
			// SubagentStart, Pre/PostCompact and Interrupt cannot refuse
			// anything; tell the person instead.
			if d.SystemMessage != "" {
				out["systemMessage"] = d.SystemMessage + "\n" + reason
			} else {
				out["systemMessage"] = reason
			}
		}
	default:
		if d.Context != "" && contextEvent(native) {
			out["hookSpecificOutput"] = map[string]any{
				"hookEventName":     native,
				"additionalContext": d.Context,
			}
		}
	}
	if len(out) == 0 {
		return harness.Output{}
	}
	b, err := json.Marshal(out)
	if err != nil {
		// Only strings and maps of strings are marshalled: this cannot fail.
		return harness.Output{}
	}
	return harness.Output{Stdout: append(b, '\n')}
}
