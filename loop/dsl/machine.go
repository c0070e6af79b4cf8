package dsl

import (
	"slices"
	"strings"
)

// TransitionFor returns the transition leaving state on event.
func (d *Definition) TransitionFor(state, event string) (Transition, bool) {
	for _, t := range d.Transitions {
		if t.From == state && t.Event == event {
			return t, true
		}
	}
	return Transition{}, false
}

// Outgoing returns the transitions leaving state, in file order.
func (d *Definition) Outgoing(state string) []Transition {
	var out []Transition
	for _, t := range d.Transitions {
		if t.From == state {
			out = append(out, t)
		}
	}
	return out
}

// IsTerminal reports whether state is one of the terminal states.
func (d *Definition) IsTerminal(state string) bool {
	return slices.Contains(d.TerminalStates, state)
}

// HasState reports whether state is declared.
func (d *Definition) HasState(state string) bool { return slices.Contains(d.States, state) }

// HasEvent reports whether event is declared.
func (d *Definition) HasEvent(event string) bool { return slices.Contains(d.Events, event) }

// WaitsForHuman reports whether the loop waits for a person in state.
func (d *Definition) WaitsForHumanIn(state string) bool {
	return slices.Contains(d.WaitsForHuman, state)
}

// ApprovalIn is the approval a person can give in state (loop.approval); a nil
// Definition has none.
func (d *Definition) ApprovalIn(state string) (Approval, bool) {
	if d == nil {
		return Approval{}, false
	}
	a, ok := d.Approval[state]
	return a, ok
}

// PersonCommand names the command with which a person applies event in state
// (loop.approval): "hook-loop approve", "hook-loop reject", or "".
func (d *Definition) PersonCommand(state, event string) string {
	a, ok := d.ApprovalIn(state)
	switch {
	case !ok:
		return ""
	case event == a.Approve:
		return "hook-loop approve"
	case event == a.Reject:
		return "hook-loop reject"
	}
	return ""
}

// EffectiveMaxStopBlocks is the stop cap in force: 0 means never capped (the
// loop's explicit max_stop_blocks: 0; the loader puts the default in for an
// absent key).
func (d *Definition) EffectiveMaxStopBlocks() int {
	return max(d.MaxStopBlocks, 0)
}

// StopCapped reports whether refused stops are capped at all: with
// max_stop_blocks: 0 the gate holds until a terminal state (or until the
// harness itself overrides it).
func (d *Definition) StopCapped() bool { return d.MaxStopBlocks > 0 }

// MissingGuards are the guards of t that granted does not grant, sorted, each
// once. The engine and the simulator both judge a transition by it.
func (t Transition) MissingGuards(granted func(guard string) bool) []string {
	var missing []string
	for _, g := range t.Guards {
		if !granted(g) && !slices.Contains(missing, g) {
			missing = append(missing, g)
		}
	}
	slices.Sort(missing)
	return missing
}

// MissingGuardsReason is the reason recorded when a transition is refused for
// missing guards (the wording of the DSL's original runtime, which logs read).
func MissingGuardsReason(missing []string) string {
	return "Missing guards for transition: " + strings.Join(missing, ", ")
}
