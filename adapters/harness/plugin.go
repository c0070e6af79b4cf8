package harness

import "github.com/hook-loop/hook-loop/loop"

// PluginAnswer is the decision as the plugins hook-loop generates (the
// opencode plugin, the pi extension) read it from their hook's answer. The
// field names are part of the contract with the templates under templates/.
type PluginAnswer struct {
	// Action is "allow", "block" or "steer".
	Action string `json:"action"`
	// Reason is the model-facing text of a block: the refused tool call's
	// result, or the follow-up message after a refused stop.
	Reason string `json:"reason,omitempty"`
	// Context is text for the model.
	Context string `json:"context,omitempty"`
	// SystemMessage is shown to the person, never the model.
	SystemMessage string `json:"systemMessage,omitempty"`
	State         string `json:"state,omitempty"`
	Outcome       string `json:"outcome,omitempty"`
}

// NewPluginAnswer is d as a plugin reads it, with action as its Action.
func NewPluginAnswer(action loop.Action, d loop.Decision) PluginAnswer {
	return PluginAnswer{Action: string(action), Reason: d.Reason, Context: d.Context,
		SystemMessage: d.SystemMessage, State: d.State, Outcome: d.Outcome}
}
