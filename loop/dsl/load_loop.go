package dsl

import (
	"encoding/json"

	"github.com/hook-loop/hook-loop/diag/jsonkind"
	"github.com/tidwall/gjson"
)

// definition reads the "loop" object: the machine, then hook-loop's extensions.
func (p *parser) definition(r gjson.Result, path string) *Definition {
	o := p.object(r, path)
	def := &Definition{
		MaxStopBlocks: DefaultMaxStopBlocks,
		Scope:         ScopeSession,
		Guardrails:    Guardrails{RiskyCommands: true, ProtectLoopFiles: true, ProtectedPaths: []string{".git/"}},
		Raw:           map[string]json.RawMessage{},
	}
	for i, k := range o.keys {
		def.Raw[k] = json.RawMessage(o.vals[i].Raw)
	}
	def.ID, _ = p.requiredString(o, "id", path)
	def.InitialState, _ = p.requiredString(o, "initial_state", path)
	initialOK := def.InitialState != ""

	statesPath, eventsPath := child(path, "states"), child(path, "events")
	if sr, ok := o.get("states"); ok {
		def.States, p.statesOK = p.stringList(sr, "states", statesPath)
	} else {
		p.errorf(CodeMissingField, statesPath, "", "states must be a list of non-empty strings")
	}
	if er, ok := o.get("events"); ok {
		def.Events, p.eventsOK = p.stringList(er, "events", eventsPath)
	} else {
		p.errorf(CodeMissingField, eventsPath, "", "events must be a list of non-empty strings")
	}
	p.statesOK = p.statesOK && p.noDuplicates(def.States, statesPath, "state", CodeDuplicateState)
	p.eventsOK = p.eventsOK && p.noDuplicates(def.Events, eventsPath, "event", CodeDuplicateEvent)

	termPath := child(path, "terminal_states")
	termOK := true
	if tr, ok := o.get("terminal_states"); ok {
		def.TerminalStates, termOK = p.stringList(tr, "terminal_states", termPath)
		if termOK && len(def.TerminalStates) == 0 {
			p.errorf(CodeNoTerminalStates, termPath, "", "terminal_states must be a non-empty list of strings")
			termOK = false
		}
	} else if p.statesOK {
		for _, s := range []string{"done", "stopped"} {
			if def.HasState(s) {
				def.TerminalStates = append(def.TerminalStates, s)
			}
		}
		if len(def.TerminalStates) == 0 {
			p.errorf(CodeNoTerminalStates, termPath, "",
				"terminal_states must be a non-empty list of strings (no terminal_states given and no \"done\" or \"stopped\" state to default to)")
			termOK = false
		}
	}
	termOK = termOK && p.noDuplicates(def.TerminalStates, termPath, "terminal state", CodeDuplicateTerminalState)

	if p.statesOK && initialOK && !def.HasState(def.InitialState) {
		p.errorf(CodeUnknownState, child(path, "initial_state"), "", "initial_state references unknown state: %s", def.InitialState)
	}
	if p.statesOK && termOK {
		for i, s := range def.TerminalStates {
			if !def.HasState(s) {
				p.errorf(CodeUnknownState, index(termPath, i), "", "terminal state references unknown state: %s", s)
			}
		}
	}

	stopPath := child(path, "stop_state")
	if sr, ok := o.get("stop_state"); ok {
		if s, ok := p.stringValue(sr, "stop_state", stopPath); ok {
			def.StopState = s
			switch {
			case p.statesOK && !def.HasState(s):
				p.errorf(CodeUnknownState, stopPath, "", "stop_state references unknown state: %s", s)
			case termOK && !def.IsTerminal(s):
				p.errorf(CodeStopStateNotTerminal, stopPath, "", "stop_state must reference a terminal state: %s", s)
			}
		}
	} else if def.IsTerminal("stopped") {
		def.StopState = "stopped"
	} else if termOK {
		p.warnf(CodeNoStopState, stopPath, "",
			"no stop_state and no terminal \"stopped\" state: simulate cannot run this loop (loop.stop_state is required for DSL simulation)")
	}

	p.transitions(o, path, def)
	p.extensions(o, path, def)
	return def
}

func (p *parser) noDuplicates(list []string, path, label, code string) bool {
	seen := map[string]bool{}
	ok := true
	for i, v := range list {
		if seen[v] {
			p.errorf(code, index(path, i), "", "duplicate %s: %s", label, v)
			ok = false
		}
		seen[v] = true
	}
	return ok
}

func (p *parser) transitions(o obj, path string, def *Definition) {
	at := child(path, "transitions")
	r, ok := o.get("transitions")
	if !ok {
		return
	}
	if !r.IsArray() {
		p.errorf(CodeBadType, at, "", "transitions must be a list of objects (got %s)", jsonkind.Name(r))
		return
	}
	seen := map[[2]string]int{}
	for i, tr := range p.items(r) {
		tp := index(at, i)
		if !tr.IsObject() {
			p.errorf(CodeBadType, tp, "", "transition must be an object with from, event and to (got %s)", jsonkind.Name(tr))
			continue
		}
		to := p.object(tr, tp)
		var t Transition
		var okF, okE, okT bool
		t.From, okF = p.requiredString(to, "from", tp)
		t.Event, okE = p.requiredString(to, "event", tp)
		t.To, okT = p.requiredString(to, "to", tp)
		t.Guards = p.optionalStringList(to, "guards", tp)
		t.Actions = p.optionalStringList(to, "actions", tp)
		t.ResumePolicy, _ = p.optionalString(to, "resume_policy", tp)
		if okF && p.statesOK && !def.HasState(t.From) {
			p.errorf(CodeUnknownState, child(tp, "from"), "", "transition references unknown state: %s", t.From)
		}
		if okT && p.statesOK && !def.HasState(t.To) {
			p.errorf(CodeUnknownState, child(tp, "to"), "", "transition references unknown state: %s", t.To)
		}
		if okE && p.eventsOK && !def.HasEvent(t.Event) {
			p.errorf(CodeUnknownEvent, child(tp, "event"), "", "transition references unknown event: %s", t.Event)
		}
		if okF && okE {
			key := [2]string{t.From, t.Event}
			if first, dup := seen[key]; dup {
				p.errorf(CodeDuplicateTransition, tp, "",
					"duplicate transition: %s/%s (already at %s)", t.From, t.Event, index(at, first))
				continue
			}
			seen[key] = i
		}
		// A transition with a bad reference is kept: the Spec is discarded anyway
		// when there is an error, and keeping it spares the rules and steps that
		// use it a second, misleading "no transition" error.
		if okF && okE && okT {
			def.Transitions = append(def.Transitions, t)
			p.transPath = append(p.transPath, tp)
		}
	}
}

// extensions reads the optional keys hook-loop added to the Python original's loop
// object. Absent keys keep the defaults definition() set.
func (p *parser) extensions(o obj, path string, def *Definition) {
	stateKey := func(label, at, s string) bool {
		if p.statesOK && !def.HasState(s) {
			p.errorf(CodeUnknownState, at, "", "%s references unknown state: %s", label, s)
			return false
		}
		return true
	}

	if r, ok := o.get("instructions"); ok {
		at := child(path, "instructions")
		if !r.IsObject() {
			p.errorf(CodeBadType, at, "", "instructions must be an object mapping a state to its instructions (got %s)", jsonkind.Name(r))
		} else {
			def.Instructions = map[string]string{}
			io := p.object(r, at)
			for i, s := range io.keys {
				sp := child(at, s)
				if !stateKey("instructions", sp, s) {
					continue
				}
				if v, ok := nonEmptyString(io.vals[i]); ok {
					def.Instructions[s] = v
				} else if v, ok := p.stringValue(io.vals[i], "instructions."+s, sp); ok {
					def.Instructions[s] = v
				}
			}
		}
	}
	def.MaxStopBlocks = p.stopCap(o, path)
	if r, ok := o.get("scope"); ok {
		at := child(path, "scope")
		switch {
		case r.Type != gjson.String:
			p.errorf(CodeBadType, at, "", "scope must be \"session\" or \"project\" (got %s)", jsonkind.Name(r))
		case r.String() != ScopeSession && r.String() != ScopeProject:
			p.errorf(CodeBadValue, at, "", "scope must be \"session\" or \"project\" (got %q)", r.String())
		default:
			def.Scope = r.String()
		}
	}
	if r, ok := o.get("policies"); ok {
		at := child(path, "policies")
		if !r.IsObject() {
			p.errorf(CodeBadType, at, "", "policies must be an object mapping a state to its tool policy (got %s)", jsonkind.Name(r))
		} else {
			def.Policies = map[string]StatePolicy{}
			po := p.object(r, at)
			for i, s := range po.keys {
				sp := child(at, s)
				okState := stateKey("policies", sp, s)
				pr := po.vals[i]
				if pr.Type == gjson.Null {
					continue
				}
				if !pr.IsObject() {
					p.errorf(CodeBadType, sp, "", "policy for state %s must be an object (got %s)", s, jsonkind.Name(pr))
					continue
				}
				fo := p.object(pr, sp)
				pol := StatePolicy{
					DenyTools:        p.optionalStringList(fo, "deny_tools", sp),
					AllowTools:       p.optionalStringList(fo, "allow_tools", sp),
					DenyCommandMatch: p.regex(fo, "deny_command_match", sp, "policy for state "+s),
					AllowPathMatch:   p.regex(fo, "allow_path_match", sp, "policy for state "+s),
				}
				if rr, ok := fo.get("reason"); ok {
					if rr.Type != gjson.String {
						p.errorf(CodeBadType, child(sp, "reason"), "", "reason must be a string (got %s)", jsonkind.Name(rr))
					} else {
						pol.Reason = rr.String()
					}
				}
				if okState {
					def.Policies[s] = pol
				}
			}
		}
	}
	if r, ok := o.get("waits_for_human"); ok {
		at := child(path, "waits_for_human")
		if l, ok := p.stringList(r, "waits_for_human", at); ok {
			for i, s := range l {
				if stateKey("waits_for_human", index(at, i), s) {
					def.WaitsForHuman = append(def.WaitsForHuman, s)
				}
			}
		}
	}
	p.approval(o, path, def)
	if r, ok := o.get("mode"); ok {
		at := child(path, "mode")
		switch {
		case r.Type != gjson.String:
			p.errorf(CodeBadType, at, "", "mode must be \"enforce\", \"warn\" or \"audit\" (got %s)", jsonkind.Name(r))
		case !ValidMode(r.String()):
			p.errorf(CodeBadValue, at, "", "mode must be \"enforce\", \"warn\" or \"audit\" (got %q)", r.String())
		default:
			def.Mode = r.String()
		}
	}
	def.FailClosed = p.optionalBool(o, "fail_closed", path, false)
	if r, ok := o.get("guardrails"); ok {
		at := child(path, "guardrails")
		if !r.IsObject() {
			p.errorf(CodeBadType, at, "", "guardrails must be an object (got %s)", jsonkind.Name(r))
		} else {
			g := p.object(r, at)
			def.Guardrails.RiskyCommands = p.optionalBool(g, "risky_commands", at, true)
			def.Guardrails.ProtectLoopFiles = p.optionalBool(g, "protect_loop_files", at, true)
			if pr, ok := g.get("protected_paths"); ok {
				if l, ok := p.stringList(pr, "protected_paths", child(at, "protected_paths")); ok {
					def.Guardrails.ProtectedPaths = l
				}
			}
		}
	}
}

// stopCap reads max_stop_blocks: a whole number, 0 meaning never capped (the
// design's gate holds until a terminal state); absent, the default cap.
func (p *parser) stopCap(o obj, path string) int {
	return p.wholeInt(o, "max_stop_blocks", path, DefaultMaxStopBlocks, 0, "0 (never capped) or a positive integer",
		"use 0 for never, or the number of refused stops after which the agent may stop")
}

// approval reads loop.approval: {"STATE": {"approve": EVENT, "reject": EVENT}}.
// STATE must wait for a person and each event must leave it, or a person's
// decision could never move the loop.
func (p *parser) approval(o obj, path string, def *Definition) {
	r, ok := o.get("approval")
	if !ok {
		return
	}
	at := child(path, "approval")
	if !r.IsObject() {
		p.errorf(CodeBadType, at, "", "approval must be an object mapping a waits_for_human state to {\"approve\": EVENT, \"reject\": EVENT} (got %s)", jsonkind.Name(r))
		return
	}
	def.Approval = map[string]Approval{}
	ao := p.object(r, at)
	for i, s := range ao.keys {
		sp := child(at, s)
		if p.statesOK && !def.HasState(s) {
			p.errorf(CodeUnknownState, sp, "", "approval references unknown state: %s", s)
			continue
		}
		if !def.WaitsForHumanIn(s) {
			p.errorf(CodeBadValue, sp, "list the state in loop.waits_for_human", "approval state %s is not in waits_for_human", s)
			continue
		}
		v := ao.vals[i]
		if !v.IsObject() {
			p.errorf(CodeBadType, sp, "", "approval for state %s must be an object with approve and reject events (got %s)", s, jsonkind.Name(v))
			continue
		}
		so := p.object(v, sp)
		var a Approval
		approve, okA := p.requiredString(so, "approve", sp)
		reject, okR := p.optionalString(so, "reject", sp)
		okA = okA && p.approvalEvent(def, s, approve, child(sp, "approve"))
		okR = okR && (reject == "" || p.approvalEvent(def, s, reject, child(sp, "reject")))
		if okA && okR {
			a.Approve, a.Reject = approve, reject
			def.Approval[s] = a
		}
	}
}

// approvalEvent checks that event is declared and leaves state.
func (p *parser) approvalEvent(def *Definition, state, event, at string) bool {
	if p.eventsOK && !def.HasEvent(event) {
		p.errorf(CodeUnknownEvent, at, "", "approval references unknown event: %s", event)
		return false
	}
	t, ok := def.TransitionFor(state, event)
	if !ok {
		p.errorf(CodeBadValue, at, "add a transition from "+state+" on "+event, "approval event %s has no transition from state %s", event, state)
		return false
	}
	if t.To == state {
		p.errorf(CodeBadValue, at, "", "approval event %s does not leave state %s", event, state)
		return false
	}
	return true
}
