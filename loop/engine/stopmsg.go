package engine

import (
	"fmt"
	"strings"

	"github.com/hook-loop/hook-loop/loop/dsl"
)

// StopMessage is what the agent reads when hook-loop refuses to let it stop. It
// is built from the DSL — the current state, the events that would leave it and
// what would emit them, the guards still missing and the state's instructions —
// never a fixed sentence: the Python original learned that a fixed sentence
// does not tell the agent what to do.
func (e *Engine) StopMessage(state string, evidence int) string {
	def := e.Spec.Definition
	var b strings.Builder
	fmt.Fprintf(&b, "hook-loop: you cannot stop yet. The loop %q is in state %q, which is not a terminal state (%s).",
		def.ID, state, strings.Join(def.TerminalStates, ", "))
	if ins := def.Instructions[state]; ins != "" {
		fmt.Fprintf(&b, "\nWhat to do now: %s", ins)
	}
	out := def.Outgoing(state)
	if len(out) == 0 {
		b.WriteString("\nNo transition leaves this state; ask the person for help.")
		return b.String()
	}
	b.WriteString("\nTo move on:")
	for _, t := range out {
		fmt.Fprintf(&b, "\n- %s → %s", t.Event, t.To)
		ways := e.Spec.DescribeEmitters(t.Event)
		if len(ways) > 0 {
			fmt.Fprintf(&b, ": happens on %s", strings.Join(ways, ", or on "))
		} else if len(e.Spec.EventMap) > 0 {
			b.WriteString(": no rule emits this event")
		}
		var missing []string
		for _, g := range t.Guards {
			if g == dsl.GuardEvidenceBound && evidence > 0 {
				continue
			}
			missing = append(missing, g)
		}
		if len(missing) > 0 {
			fmt.Fprintf(&b, "; still missing: %s", e.describeGuards(missing))
		}
	}
	return b.String()
}

// describeGuards says in plain words what would satisfy each guard.
func (e *Engine) describeGuards(guards []string) string {
	parts := make([]string, 0, len(guards))
	for _, g := range guards {
		if g == dsl.GuardEvidenceBound {
			parts = append(parts, g+" (recorded evidence: "+e.evidenceHint()+")")
			continue
		}
		var by []string
		for i := range e.Spec.EventMap {
			r := &e.Spec.EventMap[i]
			for _, s := range r.GuardSatisfied {
				if s == g {
					by = append(by, r.Describe())
				}
			}
		}
		if len(by) > 0 {
			parts = append(parts, g+" (granted on "+strings.Join(by, " or ")+")")
		} else {
			parts = append(parts, g)
		}
	}
	return strings.Join(parts, ", ")
}

func (e *Engine) evidenceHint() string {
	var ways []string
	for i := range e.Spec.EventMap {
		r := &e.Spec.EventMap[i]
		if r.Record != nil && r.Record.EventType == "evidence_registered" {
			ways = append(ways, r.Describe())
		}
	}
	if len(ways) == 0 {
		return "an evidence_registered event"
	}
	return strings.Join(ways, " or ")
}

// Contract is the short text injected at SessionStart: loop id, current state,
// and what moves it on.
func (e *Engine) Contract(state string) string {
	def := e.Spec.Definition
	var b strings.Builder
	fmt.Fprintf(&b, "hook-loop is gating this session with the loop %q. It is in state %q; you can stop only once it reaches %s.",
		def.ID, state, strings.Join(def.TerminalStates, " or "))
	if ins := def.Instructions[state]; ins != "" {
		fmt.Fprintf(&b, " Now: %s", ins)
	}
	var next []string
	for _, t := range def.Outgoing(state) {
		if ways := e.Spec.DescribeEmitters(t.Event); len(ways) > 0 {
			next = append(next, fmt.Sprintf("%s (on %s)", t.To, strings.Join(ways, " or ")))
		} else {
			next = append(next, t.To)
		}
	}
	if len(next) > 0 {
		fmt.Fprintf(&b, " Next: %s.", strings.Join(next, "; "))
	}
	return b.String()
}

func (h *handling) contract() string { return h.e.Contract(h.state) }
