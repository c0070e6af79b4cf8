package opencode

import (
	"encoding/json"

	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/loop"
)

// ExitBlock is the exit status of a refusal, so that a plugin that reads only the
// status (the Python prototype's) still refuses.
const ExitBlock = 2

// Answer is the one JSON line opencode-hook prints; the plugin acts on it:
//
//	action "block"  tool.execute.before: throw Error(reason) (the model reads reason as the tool result)
//	                chat.message: throw Error(reason) (the prompt is refused)
//	                stop: send reason as a new user message (promptAsync), at most maxStopBlocks times
//	action "steer"  context is appended to the tool's output (tool.execute.after) or to the
//	                next system prompt (chat.message, session.created, tool.execute.before)
//	action "allow"  nothing
//
// systemMessage is for the person (the plugin logs it), never the model.
type Answer struct {
	harness.PluginAnswer
	Event         string `json:"event,omitempty"` // the canonical event it answers
	StopBlocks    int    `json:"stopBlocks,omitempty"`
	MaxStopBlocks int    `json:"maxStopBlocks,omitempty"`
}

// Encode implements harness.Adapter.
func (Adapter) Encode(ev loop.HookEvent, d loop.Decision) harness.Output {
	a := Answer{
		PluginAnswer:  harness.NewPluginAnswer(d.Action, d),
		Event:         ev.Name,
		StopBlocks:    d.StopBlocks,
		MaxStopBlocks: d.MaxStopBlocks,
	}
	switch d.Action {
	case loop.Block, loop.Steer:
	default:
		a.Action = string(loop.Allow)
	}
	if a.Action == string(loop.Block) && a.Reason == "" {
		// The reason is what the model reads; an empty throw would tell it nothing.
		a.Reason = "hook-loop refused this (no reason given)"
	}
	b, _ := json.Marshal(a)
	out := harness.Output{Stdout: append(b, '\n')}
	if a.Action == string(loop.Block) {
		out.Exit = ExitBlock
	}
	return out
}
