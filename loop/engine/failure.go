package engine

import (
	"strings"

	"github.com/hook-loop/hook-loop/loop"
)

// FailureMessage is the one-line text of an error that stopped hook-loop from
// deciding an event, as the person reads it.
func FailureMessage(err error) string {
	return "hook-loop: " + strings.Join(strings.Fields(err.Error()), " ")
}

// IsStop reports whether event is the agent's or a subagent's stop.
func IsStop(event string) bool { return event == loop.EventStop || event == loop.EventSubagentStop }

// stopFailureWhy is what a stop refused for a failure adds to the reason: the
// way out is the person's, never the agent's.
const stopFailureWhy = " (hook-loop cannot check the loop, so the agent may not stop: fix what failed, or let the agent go with `hook-loop cancel` or by uninstalling hook-loop)"

// Failure is the Decision for an event hook-loop could not decide: bad input, a
// loop that does not load, a log it cannot write. A stop is refused whatever
// the loop says: a failure the agent can cause must never open the gate. A
// tool call is refused when the loop asks to fail closed, and proceeds
// otherwise, as every other event does. loaded says whether failClosed comes
// from a loop that loaded or from a quick read of a file that did not; the
// reason says which.
func Failure(event string, err error, failClosed, loaded bool) loop.Decision {
	if IsStop(event) {
		return Refusal(event, err, stopFailureWhy)
	}
	if !failClosed {
		return loop.Decision{Action: loop.Allow, SystemMessage: FailureMessage(err) + " (the agent proceeds)"}
	}
	why := " (this loop is fail_closed, so hook-loop refuses until it is fixed)"
	if !loaded {
		why = " (fail_closed: refusing until it is fixed)"
	}
	return Refusal(event, err, why)
}

// Refusal is the Decision for an event hook-loop could not decide and
// refuses if it is a gate (a stop or a tool call), why saying why in the
// refusal's reason; any other event proceeds, and the person is told.
func Refusal(event string, err error, why string) loop.Decision {
	msg := FailureMessage(err)
	switch event {
	case loop.EventStop, loop.EventSubagentStop, loop.EventPreToolUse, loop.EventPermissionRequest:
		return loop.Decision{Action: loop.Block, Reason: msg + why, SystemMessage: msg}
	}
	return loop.Decision{Action: loop.Allow, SystemMessage: msg + " (the agent proceeds)"}
}
