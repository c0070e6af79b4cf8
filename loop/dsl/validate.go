package dsl

import (
	"slices"
	"strings"

	"github.com/hook-loop/hook-loop/loop"
)

// graphWarnings reports states the machine can never enter and states it can
// never leave towards a terminal state.
func (p *parser) graphWarnings(def *Definition, path string) {
	if def == nil || !p.statesOK || !def.HasState(def.InitialState) || len(def.TerminalStates) == 0 {
		return
	}
	statesPath := child(path, "states")
	reached := map[string]bool{def.InitialState: true}
	// The runtime (and the engine's outcome "stopped") moves to the stop state
	// without a transition, so it is reachable by definition.
	if def.StopState != "" {
		reached[def.StopState] = true
	}
	queue := []string{def.InitialState}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, t := range def.Transitions {
			if t.From == s && !reached[t.To] {
				reached[t.To] = true
				queue = append(queue, t.To)
			}
		}
	}
	leadsOut := map[string]bool{}
	for _, s := range def.TerminalStates {
		leadsOut[s] = true
	}
	for changed := true; changed; {
		changed = false
		for _, t := range def.Transitions {
			if leadsOut[t.To] && !leadsOut[t.From] {
				leadsOut[t.From] = true
				changed = true
			}
		}
	}
	for i, s := range def.States {
		switch {
		case !reached[s]:
			p.warnf(CodeUnreachableState, index(statesPath, i), "",
				"state %s is unreachable: no chain of transitions leads to it from initial_state %s", s, def.InitialState)
		case !leadsOut[s]:
			p.warnf(CodeNoPathToTerminal, index(statesPath, i), "",
				"state %s has no path to a terminal state (%s): a loop that enters it can never finish", s, strings.Join(def.TerminalStates, ", "))
		}
	}
}

// eventMapWarnings reports what would make the loop stall under a real harness:
// events no rule emits, guards nothing satisfies, conditions that never hold.
func (p *parser) eventMapWarnings(spec *Spec, path string) {
	def := spec.Definition
	if def == nil || !p.hasEventMap {
		return
	}
	emitted := map[string]bool{}
	for _, r := range spec.EventMap {
		if r.Emit != "" {
			emitted[r.Emit] = true
		}
	}
	if p.eventsOK {
		for i, ev := range def.Events {
			var from []string
			for _, t := range def.Transitions {
				if t.Event == ev {
					from = append(from, t.From)
				}
			}
			if len(from) > 0 && !emitted[ev] {
				p.warnf(CodeEventNeverEmitted, index(child(path, "events"), i), "",
					"no codex.event_map rule emits event %s: under a real harness the loop can never leave %s by it",
					ev, strings.Join(from, ", "))
			}
		}
	}
	for k, t := range def.Transitions {
		for j, g := range t.Guards {
			if slices.Contains(BuiltinGuards, g) {
				continue
			}
			satisfied := false
			for _, r := range spec.EventMap {
				if r.Emit == t.Event && slices.Contains(r.GuardSatisfied, g) {
					satisfied = true
				}
			}
			if !satisfied {
				p.warnf(CodeGuardNeverSatisfied, index(child(p.transPath[k], "guards"), j), "",
					"guard %s of transition %s/%s is not built in and no rule emitting %s lists it in guard_satisfied: the transition is always rejected",
					g, t.From, t.Event, t.Event)
			}
		}
	}
	for _, r := range spec.EventMap {
		p.matcherWarnings(r, index("codex.event_map", r.Index))
	}
}

// carries reports whether a HookEvent of the canonical event has the fact. A
// matcher on a fact the event lacks sees "" (or an unknown exit code).
func carries(event, fact string) bool {
	switch event {
	case loop.EventPreToolUse, loop.EventPermissionRequest:
		return fact == "tool_name" || fact == "command" || fact == "paths"
	case loop.EventPostToolUse:
		return fact == "tool_name" || fact == "command" || fact == "paths" || fact == "exit_code"
	case loop.EventUserPromptSubmit:
		return fact == "prompt"
	case loop.EventStop, loop.EventSubagentStop:
		return fact == "last_message"
	}
	return false
}

func (p *parser) matcherWarnings(r Rule, rulePath string) {
	has := func(fact string) bool { return carries(r.CodexEvent, fact) }
	at := func(field string) string { return child(child(rulePath, "when"), field) }
	never := func(field, why string) {
		p.warnf(CodeMatcherNeverMatches, at(field), "",
			"%s can never match on %s: %s, so rule %d never fires", field, r.CodexEvent, why, r.Index)
	}
	m := r.When
	if m.ToolName != "" && !has("tool_name") {
		never("tool_name", "that event has no tool")
	}
	if m.ExitCode != nil && !has("exit_code") {
		never("exit_code", "only PostToolUse reports an exit code")
	}
	if m.ExitCodeNot != nil && !has("exit_code") {
		never("exit_code_not", "only PostToolUse reports an exit code")
	}
	if m.PathMatch != nil && !has("paths") {
		never("path_match", "that event has no tool call and no paths")
	}
	emptyOnly := func(re *Pattern, field, fact, why string) {
		if re != nil && !has(fact) && !re.MatchString("") {
			never(field, why)
		}
	}
	emptyOnly(m.CommandMatch, "command_match", "command", "that event has no tool command")
	emptyOnly(m.PromptMatch, "prompt_match", "prompt", "only UserPromptSubmit carries a prompt")
	emptyOnly(m.LastMessageMatch, "last_message_match", "last_message", "only Stop and SubagentStop carry the agent's last message")
	if m.PromptNotMatch != nil && !has("prompt") && m.PromptNotMatch.MatchString("") {
		never("prompt_not_match", "the event has no prompt and the pattern matches the empty one")
	}
	if m.CommandMatch != nil && has("command") && m.ToolName != "" && m.ToolName != "Bash" && !m.CommandMatch.MatchString("") {
		p.warnf(CodeMatcherNeverMatches, at("command_match"), "",
			"command_match can never match with tool_name %s: only Bash calls carry a command, so rule %d never fires", m.ToolName, r.Index)
	}
}
