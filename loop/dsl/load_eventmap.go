package dsl

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/hook-loop/hook-loop/diag/jsonkind"
	"github.com/hook-loop/hook-loop/loop"
	"github.com/tidwall/gjson"
)

// codex reads the "codex" object: its event_map, the rules every harness's events
// are matched against (the key keeps the Python original's name).
func (p *parser) codex(r gjson.Result, path string, def *Definition) []Rule {
	if !r.IsObject() {
		p.errorf(CodeBadType, path, "", "codex must be an object (got %s)", jsonkind.Name(r))
		return nil
	}
	o := p.object(r, path)
	er, ok := o.get("event_map")
	if !ok {
		return nil
	}
	at := child(path, "event_map")
	if !er.IsArray() {
		p.errorf(CodeBadType, at, "", "codex.event_map must be a list (got %s)", jsonkind.Name(er))
		return nil
	}
	p.hasEventMap = true
	withTransition := map[string]bool{}
	for _, t := range def.Transitions {
		withTransition[t.Event] = true
	}
	rules := []Rule{}
	for i, rr := range p.items(er) {
		rp := index(at, i)
		if !rr.IsObject() {
			p.errorf(CodeBadType, rp, "", "codex.event_map[%d] must be an object (got %s)", i, jsonkind.Name(rr))
			continue
		}
		ro := p.object(rr, rp)
		rule := Rule{Index: i}
		okRule := true
		if ev, ok := p.requiredString(ro, "codex_event", rp); ok {
			if !loop.IsCanonicalEvent(ev) {
				p.errorf(CodeUnknownCodexEvent, child(rp, "codex_event"), "",
					"codex.event_map[%d].codex_event is not a supported hook event: %s", i, ev)
				okRule = false
			}
			rule.CodexEvent = ev
		} else {
			okRule = false
		}
		owner := ""
		if !p.trusted {
			// Named in regex errors only, which trusted content has none of.
			owner = fmt.Sprintf("rule %d (%s)", i, rule.CodexEvent)
		}
		if wr, ok := ro.get("when"); ok {
			rule.When = p.matcher(wr, child(rp, "when"), owner)
		}
		if rec, ok := ro.get("record"); ok {
			rule.Record = p.record(rec, child(rp, "record"))
		}
		_, hasRecord := ro.get("record")
		if er, ok := ro.get("emit"); ok {
			emit, good := nonEmptyString(er)
			if !good {
				emit, good = p.stringValue(er, fmt.Sprintf("codex.event_map[%d].emit", i), child(rp, "emit"))
			}
			switch {
			case !good:
				okRule = false
			case p.eventsOK && !def.HasEvent(emit):
				p.errorf(CodeUnknownEvent, child(rp, "emit"), "", "codex.event_map emit references unknown event: %s", emit)
				okRule = false
			case p.eventsOK && !withTransition[emit]:
				p.errorf(CodeEmitWithoutTransition, child(rp, "emit"), "", "codex.event_map emit has no matching transition: %s", emit)
				okRule = false
			}
			rule.Emit = emit
		} else if !hasRecord {
			// A rule with a record may only record (an extension); one with
			// neither does nothing, which the Python original refused.
			p.errorf(CodeMissingField, child(rp, "emit"), "give the loop event this rule emits, or a record for a record-only rule",
				"codex.event_map[%d].emit must be a non-empty string", i)
			okRule = false
		}
		if gr, ok := ro.get("guard_satisfied"); ok {
			rule.GuardSatisfied, _ = p.stringList(gr, "guard_satisfied", child(rp, "guard_satisfied"))
		}
		if cr, ok := ro.get("comment"); ok && cr.Type == gjson.String {
			rule.Comment = cr.String()
		}
		if okRule {
			rules = append(rules, rule)
		}
	}
	return rules
}

func (p *parser) matcher(r gjson.Result, at, owner string) Matcher {
	var m Matcher
	if !r.IsObject() {
		p.errorf(CodeBadType, at, "", "when must be an object (got %s)", jsonkind.Name(r))
		return m
	}
	o := p.object(r, at)
	m.ToolName, _ = p.optionalString(o, "tool_name", at)
	m.CommandMatch = p.regex(o, "command_match", at, owner)
	m.PromptMatch = p.regex(o, "prompt_match", at, owner)
	m.PromptNotMatch = p.regex(o, "prompt_not_match", at, owner)
	m.LastMessageMatch = p.regex(o, "last_message_match", at, owner)
	m.PathMatch = p.regex(o, "path_match", at, owner)
	if er, ok := o.get("exit_code"); ok {
		ep := child(at, "exit_code")
		var lit string
		switch er.Type {
		case gjson.Number:
			lit = er.Raw
		case gjson.String:
			// The Python original compared str(exit_code) with str(the real code), so
			// "0" meant 0.
			lit = er.String()
		default:
			p.errorf(CodeBadType, ep, "", "exit_code must be an integer (got %s)", jsonkind.Name(er))
			return m
		}
		n, err := strconv.Atoi(lit)
		if !isIntLiteral(lit) || err != nil {
			p.errorf(CodeBadValue, ep, "write a whole number such as 0", "exit_code must be an integer or a numeric string like \"0\" (got %s)", describeValue(er, true))
			return m
		}
		m.ExitCode = &n
	}
	if er, ok := o.get("exit_code_not"); ok {
		ep := child(at, "exit_code_not")
		lit := er.Raw
		if er.Type == gjson.String {
			lit = er.String()
		}
		n, err := strconv.Atoi(lit)
		if (er.Type != gjson.Number && er.Type != gjson.String) || !isIntLiteral(lit) || err != nil {
			p.errorf(CodeBadValue, ep, "write a whole number such as 0", "exit_code_not must be an integer or a numeric string like \"0\" (got %s)", describeValue(er, true))
			return m
		}
		m.ExitCodeNot = &n
	}
	return m
}

func (p *parser) record(r gjson.Result, at string) *RecordSpec {
	if !r.IsObject() {
		p.errorf(CodeBadType, at, "", "record must be an object (got %s)", jsonkind.Name(r))
		return nil
	}
	o := p.object(r, at)
	rec := &RecordSpec{Payload: map[string]any{}}
	rec.EventType, _ = p.requiredString(o, "event_type", at)
	rec.Actor, _ = p.requiredString(o, "actor", at)
	if pr, ok := o.get("payload"); ok {
		rec.Payload = p.payload(pr, "record.payload", child(at, "payload"))
	}
	if ir, ok := o.get("include"); ok {
		ip := child(at, "include")
		l, _ := p.stringList(ir, "record.include", ip)
		for i, item := range p.items(ir) {
			v := item.String()
			if item.Type != gjson.String || v == "" || slices.Contains(RecordIncludes, v) {
				continue
			}
			p.warnf(CodeUnknownInclude, index(ip, i), "", "record.include names %q, which hook-loop does not know; it is ignored", v)
		}
		rec.Include = l
	}
	return rec
}
