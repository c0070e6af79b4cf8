package dsl

import (
	"strconv"

	"github.com/hook-loop/hook-loop/diag/jsonkind"
	"github.com/tidwall/gjson"
)

// simulation reads the "simulation" object: budget, scripted agent steps, verdicts.
func (p *parser) simulation(r gjson.Result, path string, def *Definition) Simulation {
	sim := Simulation{Budget: Budget{MaxTurns: 10, MaxNoProgressTurns: 2}, AgentSteps: map[string][]AgentStep{}}
	if !r.IsObject() {
		p.errorf(CodeBadType, path, "", "simulation must be an object (got %s)", jsonkind.Name(r))
		return sim
	}
	o := p.object(r, path)
	if br, ok := o.get("budget"); ok {
		bp := child(path, "budget")
		if !br.IsObject() {
			p.errorf(CodeBadType, bp, "", "simulation.budget must be an object (got %s)", jsonkind.Name(br))
		} else {
			bo := p.object(br, bp)
			sim.Budget.MaxTurns = p.positiveInt(bo, "max_turns", bp, 10)
			sim.Budget.MaxNoProgressTurns = p.positiveInt(bo, "max_no_progress_turns", bp, 2)
		}
	}
	if ar, ok := o.get("agent_steps"); ok {
		ap := child(path, "agent_steps")
		if !ar.IsObject() {
			p.errorf(CodeBadType, ap, "", "simulation.agent_steps must be an object mapping a state to its steps (got %s)", jsonkind.Name(ar))
		} else {
			ao := p.object(ar, ap)
			for j, state := range ao.keys {
				sp := child(ap, state)
				stateOK := true
				if state == "" {
					p.errorf(CodeBadValue, sp, "", "simulation.agent_steps keys must be non-empty strings")
					stateOK = false
				} else if p.statesOK && !def.HasState(state) {
					p.errorf(CodeUnknownState, sp, "", "simulation.agent_steps references unknown state: %s", state)
					stateOK = false
				}
				lr := ao.vals[j]
				if !lr.IsArray() {
					p.errorf(CodeBadType, sp, "", "simulation.agent_steps.%s must be a list (got %s)", state, jsonkind.Name(lr))
					continue
				}
				steps := []AgentStep{}
				for i, step := range p.items(lr) {
					ip := index(sp, i)
					if !step.IsObject() {
						p.errorf(CodeBadType, ip, "", "simulation.agent_steps.%s entries must be objects (got %s)", state, jsonkind.Name(step))
						continue
					}
					so := p.object(step, ip)
					ev, ok := p.requiredString(so, "event", ip)
					st := AgentStep{Event: ev, Payload: map[string]any{}}
					if pr, ok := so.get("payload"); ok {
						st.Payload = p.payload(pr, "payload", child(ip, "payload"))
					}
					if ok && p.eventsOK && !def.HasEvent(ev) {
						p.errorf(CodeUnknownEvent, child(ip, "event"), "", "simulation agent step references unknown event: %s", ev)
						ok = false
					}
					if ok && stateOK && p.statesOK && p.eventsOK {
						if _, has := def.TransitionFor(state, ev); !has {
							p.errorf(CodeStepWithoutTransition, child(ip, "event"), "", "No transition for simulation step: %s/%s", state, ev)
						}
					}
					steps = append(steps, st)
				}
				sim.AgentSteps[state] = steps
			}
		}
	}
	if vr, ok := o.get("verdicts"); ok {
		vp := child(path, "verdicts")
		if !vr.IsArray() {
			p.errorf(CodeBadType, vp, "", "simulation.verdicts must be a list (got %s)", jsonkind.Name(vr))
		} else {
			for i, item := range p.items(vr) {
				ip := index(vp, i)
				if !item.IsObject() {
					p.errorf(CodeBadType, ip, "", "simulation.verdicts entries must be objects (got %s)", jsonkind.Name(item))
					continue
				}
				vo := p.object(item, ip)
				v := Verdict{}
				st, ok := vo.get("status")
				if !ok || st.Type != gjson.String || (st.String() != VerdictPass && st.String() != VerdictNeedsWork) {
					code := CodeBadValue
					if !ok {
						code = CodeMissingField
					} else if st.Type != gjson.String {
						code = CodeBadType
					}
					p.errorf(code, child(ip, "status"), "use \"PASS\" or \"NEEDS_WORK\"", "simulation.verdicts.status must be PASS or NEEDS_WORK (got %s)", describeValue(st, ok))
				} else {
					v.Status = st.String()
				}
				if dr, ok := vo.get("details"); ok {
					if dr.Type != gjson.String {
						p.errorf(CodeBadType, child(ip, "details"), "", "simulation.verdicts.details must be a string (got %s)", jsonkind.Name(dr))
					} else {
						v.Details = dr.String()
					}
				}
				sim.Verdicts = append(sim.Verdicts, v)
			}
		}
	}
	return sim
}

func describeValue(r gjson.Result, present bool) string {
	if !present {
		return "nothing"
	}
	if r.Type == gjson.String {
		return strconv.Quote(r.String())
	}
	return describe(r)
}
