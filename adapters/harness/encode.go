package harness

import "github.com/hook-loop/hook-loop/loop"

// RefusedReason is the reason a refusal without one carries where the
// harness has no wording of its own: an empty reason tells the model nothing.
const RefusedReason = "refused by hook-loop"

// NativeEvent is the name the harness fired ev under. An event that could
// not be decoded may carry only its canonical name; answering in that name
// keeps the refusal in a shape the harness reads.
func NativeEvent(ev loop.HookEvent) string {
	if ev.NativeName == "" {
		return ev.Name
	}
	return ev.NativeName
}

// BlockReason is d's reason, or fallback when d refuses without one: each
// harness shows the reason of a block to the model, and an empty one reads
// as no answer at all (Codex even fails open on it).
func BlockReason(d loop.Decision, fallback string) string {
	if d.Action == loop.Block && d.Reason == "" {
		return fallback
	}
	return d.Reason
}

// CommandAnswer is the JSON object a Claude Code or Gemini CLI command hook
// prints on stdout (Gemini CLI took Claude Code's hook protocol); H is each
// harness's own hookSpecificOutput. Empty fields are omitted, so an allow
// with nothing to say prints nothing at all.
type CommandAnswer[H any] struct {
	Decision           string `json:"decision,omitempty"`
	Reason             string `json:"reason,omitempty"`
	SystemMessage      string `json:"systemMessage,omitempty"`
	HookSpecificOutput *H     `json:"hookSpecificOutput,omitempty"`
	Continue           *bool  `json:"continue,omitempty"`
	StopReason         string `json:"stopReason,omitempty"`
}

// Answer is a as the hook named harness prints it, exit 0. A decision that
// ends the session sets continue:false, which both harnesses honour by
// stopping without another model call, with reason as the stop reason.
func (a CommandAnswer[H]) Answer(d loop.Decision, reason, harness string) Output {
	if d.EndSession {
		f := false
		a.Continue, a.StopReason = &f, reason
	}
	if a == (CommandAnswer[H]{}) {
		return Output{}
	}
	return JSONOutput(a, harness)
}
