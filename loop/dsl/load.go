package dsl

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hook-loop/hook-loop/internal/jsonkind"
	"github.com/hook-loop/hook-loop/loop"

	"github.com/tidwall/gjson"
)

// Load reads and validates the DSL file at path. It returns every diagnostic
// (warnings included); when any of them is an error the Spec is nil and the error
// is a *LoadError naming the file, the JSON path and the first problem.
func Load(path string) (*Spec, Diagnostics, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		reason := err
		var pe *fs.PathError
		if errors.As(err, &pe) {
			reason = pe.Err
		}
		ds := Diagnostics{{
			Code: CodeUnreadableFile, Severity: SeverityError,
			Message: fmt.Sprintf("cannot read DSL file: %v", reason),
			Hint:    defaultHints[CodeUnreadableFile],
		}}
		return nil, ds, &LoadError{File: path, Diagnostics: ds}
	}
	spec, ds, err := Parse(path, data)
	if spec != nil {
		spec.Path = path
	}
	return spec, ds, err
}

// Parse validates a DSL document. name is used in the error text only (a file
// name, or something like "<embedded plan_execute>").
func Parse(name string, data []byte) (*Spec, Diagnostics, error) {
	p := &parser{}
	spec := p.document(data)
	ds := p.diags
	if ds == nil {
		ds = Diagnostics{}
	}
	if ds.HasErrors() {
		return nil, ds, &LoadError{File: name, Diagnostics: ds}
	}
	return spec, ds, nil
}

// DefinitionFromJSON builds a Definition from a bare "loop" object, as the
// Python original's LoopDefinition.from_dict did; paths in its errors are relative to
// that object ("transitions[2].to").
func DefinitionFromJSON(data []byte) (*Definition, error) {
	p := &parser{}
	if !p.syntax(data) {
		return nil, &LoadError{Diagnostics: p.diags}
	}
	root := gjson.ParseBytes(data)
	if !root.IsObject() {
		p.errorf(CodeBadType, "", "", "loop definition must be an object (got %s)", jsonkind.Name(root))
		return nil, &LoadError{Diagnostics: p.diags}
	}
	def := p.definition(root, "")
	if p.diags.HasErrors() {
		return nil, &LoadError{Diagnostics: p.diags}
	}
	return def, nil
}

// MustDefinitionFromJSON is DefinitionFromJSON for literals in tests and examples.
func MustDefinitionFromJSON(data string) *Definition {
	d, err := DefinitionFromJSON([]byte(data))
	if err != nil {
		panic(err)
	}
	return d
}

// parser collects diagnostics while it builds the Spec. It never stops at the
// first problem: validation reports everything at once.
type parser struct {
	diags Diagnostics

	// What parsed cleanly, so that cross-references are only checked against
	// lists that exist (no cascade of "unknown state" after a bad "states").
	statesOK, eventsOK bool
	// transPath[k] is the JSON path of Definition.Transitions[k].
	transPath []string
	// hasEventMap: codex.event_map is present (even empty).
	hasEventMap bool
}

func (p *parser) add(sev, code, path, hint, format string, args ...any) {
	if hint == "" {
		hint = defaultHints[code]
	}
	p.diags = append(p.diags, Diagnostic{
		Code: code, Severity: sev, Path: path,
		Message: fmt.Sprintf(format, args...), Hint: hint,
	})
}

func (p *parser) errorf(code, path, hint, format string, args ...any) {
	p.add(SeverityError, code, path, hint, format, args...)
}

func (p *parser) warnf(code, path, hint, format string, args ...any) {
	p.add(SeverityWarning, code, path, hint, format, args...)
}

// syntax checks that data is one JSON value, reporting the line and column of a
// syntax error.
func (p *parser) syntax(data []byte) bool {
	// json.Valid allocates nothing; only a broken file pays for Unmarshal's
	// error with its offset.
	if json.Valid(data) {
		return true
	}
	var v any
	err := json.Unmarshal(data, &v)
	if err == nil {
		return true
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := lineCol(data, int(se.Offset))
		p.errorf(CodeInvalidJSON, "", "", "invalid JSON at line %d, column %d: %s", line, col, se.Error())
		return false
	}
	p.errorf(CodeInvalidJSON, "", "", "invalid JSON: %v", err)
	return false
}

// lineCol converts a byte offset (encoding/json reports the offset just past the
// offending byte) into 1-based line and column.
func lineCol(data []byte, offset int) (int, int) {
	if offset > len(data) {
		offset = len(data)
	}
	if offset > 0 {
		offset-- // point at the offending byte itself
	}
	line, col := 1, 1
	for _, b := range data[:offset] {
		if b == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

func (p *parser) document(data []byte) *Spec {
	if !p.syntax(data) {
		return nil
	}
	root := gjson.ParseBytes(data)
	if !root.IsObject() {
		p.errorf(CodeBadType, "", "a hook-loop file is {\"loop\": {...}, \"simulation\": {...}, \"codex\": {...}}",
			"top-level DSL document must be an object (got %s)", jsonkind.Name(root))
		return nil
	}
	top := p.object(root, "")
	loopRaw, ok := top.get("loop")
	if !ok {
		p.errorf(CodeMissingField, "loop", "", "DSL document must contain a loop object")
		return nil
	}
	if !loopRaw.IsObject() {
		p.errorf(CodeBadType, "loop", "", "DSL document must contain a loop object (got %s)", jsonkind.Name(loopRaw))
		return nil
	}
	spec := &Spec{}
	spec.Definition = p.definition(loopRaw, "loop")
	if r, ok := top.get("simulation"); ok {
		spec.Simulation = p.simulation(r, "simulation", spec.Definition)
	} else {
		spec.Simulation = Simulation{Budget: Budget{MaxTurns: 10, MaxNoProgressTurns: 2}, AgentSteps: map[string][]AgentStep{}}
	}
	if r, ok := top.get("codex"); ok {
		spec.EventMap = p.codex(r, "codex", spec.Definition)
	}
	p.graphWarnings(spec.Definition, "loop")
	p.eventMapWarnings(spec, "loop")
	return spec
}

// obj is a JSON object with its keys in document order. A repeated key keeps its
// first position and its last value, as Python's json module (the Python original) did.
type obj struct {
	keys []string
	vals map[string]gjson.Result
}

func (p *parser) object(r gjson.Result, path string) obj {
	o := obj{vals: map[string]gjson.Result{}}
	r.ForEach(func(k, v gjson.Result) bool {
		key := k.String()
		if _, dup := o.vals[key]; dup {
			p.warnf(CodeDuplicateKey, child(path, key), "", "key %q appears more than once; the last value is used", key)
		} else {
			o.keys = append(o.keys, key)
		}
		o.vals[key] = v
		return true
	})
	return o
}

// get returns a key's value; a null value counts as absent, as the Python original's
// raw.get(key) or default did.
func (o obj) get(key string) (gjson.Result, bool) {
	v, ok := o.vals[key]
	if !ok || v.Type == gjson.Null {
		return gjson.Result{}, false
	}
	return v, true
}

// kind names a JSON value's type for "expected X (got Y)" messages.

var identRe = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$-]*$`)

// child is path.key, quoting keys that are not identifiers (path["odd key"]).
func child(path, key string) string {
	if !identRe.MatchString(key) {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

// requiredString reads a required non-empty string field.
func (p *parser) requiredString(o obj, key, path string) (string, bool) {
	at := child(path, key)
	r, ok := o.get(key)
	if !ok {
		p.errorf(CodeMissingField, at, "", "%s must be a non-empty string", key)
		return "", false
	}
	return p.stringValue(r, key, at)
}

// optionalString reads an optional non-empty string field.
func (p *parser) optionalString(o obj, key, path string) (string, bool) {
	r, ok := o.get(key)
	if !ok {
		return "", true
	}
	return p.stringValue(r, key, child(path, key))
}

func (p *parser) stringValue(r gjson.Result, label, at string) (string, bool) {
	if r.Type != gjson.String {
		p.errorf(CodeBadType, at, "", "%s must be a non-empty string (got %s)", label, jsonkind.Name(r))
		return "", false
	}
	if r.String() == "" {
		p.errorf(CodeBadValue, at, "give a non-empty string", "%s must be a non-empty string (got \"\")", label)
		return "", false
	}
	return r.String(), true
}

// stringList reads a list of non-empty strings; ok is false when anything in it
// was wrong (each wrong item has its own diagnostic).
func (p *parser) stringList(r gjson.Result, label, at string) ([]string, bool) {
	if !r.IsArray() {
		p.errorf(CodeBadType, at, "", "%s must be a list of non-empty strings (got %s)", label, jsonkind.Name(r))
		return nil, false
	}
	out := []string{}
	ok := true
	for i, item := range r.Array() {
		if item.Type != gjson.String {
			p.errorf(CodeBadType, index(at, i), "", "%s must be a list of non-empty strings (item %d is %s)", label, i, jsonkind.Name(item))
			ok = false
			continue
		}
		if item.String() == "" {
			p.errorf(CodeBadValue, index(at, i), "give a non-empty string", "%s must be a list of non-empty strings (item %d is \"\")", label, i)
			ok = false
			continue
		}
		out = append(out, item.String())
	}
	return out, ok
}

func (p *parser) optionalStringList(o obj, key, path string) []string {
	r, ok := o.get(key)
	if !ok {
		return nil
	}
	l, _ := p.stringList(r, key, child(path, key))
	return l
}

var intLiteral = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)

// positiveInt reads an optional positive integer (a JSON integer literal: 3.0 is
// refused, as the Python original's isinstance(value, int) did).
func (p *parser) positiveInt(o obj, key, path string, def int) int {
	r, ok := o.get(key)
	if !ok {
		return def
	}
	at := child(path, key)
	label := key
	if r.Type != gjson.Number || !intLiteral.MatchString(r.Raw) {
		p.errorf(CodeBadType, at, "", "%s must be a positive integer (got %s)", label, describe(r))
		return def
	}
	n, err := strconv.Atoi(r.Raw)
	if err != nil || n < 1 {
		p.errorf(CodeBadValue, at, "use a whole number of 1 or more", "%s must be a positive integer (got %s)", label, r.Raw)
		return def
	}
	return n
}

func (p *parser) optionalBool(o obj, key, path string, def bool) bool {
	r, ok := o.get(key)
	if !ok {
		return def
	}
	if !r.IsBool() {
		p.errorf(CodeBadType, child(path, key), "", "%s must be true or false (got %s)", key, jsonkind.Name(r))
		return def
	}
	return r.Bool()
}

// describe is kind plus the literal for scalars ("number 2.5").
func describe(r gjson.Result) string {
	switch r.Type {
	case gjson.Number, gjson.True, gjson.False:
		return jsonkind.Name(r) + " " + r.Raw
	}
	return jsonkind.Name(r)
}

// regex compiles an optional pattern field with Go's RE2.
func (p *parser) regex(o obj, key, path, owner string) *regexp.Regexp {
	r, ok := o.get(key)
	if !ok {
		return nil
	}
	at := child(path, key)
	if r.Type != gjson.String {
		p.errorf(CodeBadType, at, "", "%s must be a string (a regular expression) (got %s)", key, jsonkind.Name(r))
		return nil
	}
	re, err := regexp.Compile(r.String())
	if err != nil {
		p.errorf(CodeBadRegex, at, "", "%s: %s %q does not compile as a Go RE2 regular expression: %s",
			owner, key, r.String(), strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		return nil
	}
	return re
}

func (p *parser) payload(r gjson.Result, label, at string) map[string]any {
	if !r.IsObject() {
		p.errorf(CodeBadType, at, "", "%s must be an object (got %s)", label, jsonkind.Name(r))
		return map[string]any{}
	}
	m := map[string]any{}
	if err := json.Unmarshal([]byte(r.Raw), &m); err != nil {
		// syntax() already accepted the document, so this cannot happen for a
		// sub-object; report it rather than panic if it ever does.
		p.errorf(CodeInvalidJSON, at, "", "%s: %v", label, err)
	}
	return m
}

func (p *parser) definition(r gjson.Result, path string) *Definition {
	o := p.object(r, path)
	def := &Definition{
		MaxStopBlocks: DefaultMaxStopBlocks,
		Scope:         ScopeSession,
		Guardrails:    Guardrails{RiskyCommands: true, ProtectLoopFiles: true, ProtectedPaths: []string{".git/"}},
		Raw:           map[string]json.RawMessage{},
	}
	for _, k := range o.keys {
		def.Raw[k] = json.RawMessage(o.vals[k].Raw)
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
	for i, tr := range r.Array() {
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
			for _, s := range io.keys {
				sp := child(at, s)
				if !stateKey("instructions", sp, s) {
					continue
				}
				if v, ok := p.stringValue(io.vals[s], "instructions."+s, sp); ok {
					def.Instructions[s] = v
				}
			}
		}
	}
	def.MaxStopBlocks = p.positiveInt(o, "max_stop_blocks", path, DefaultMaxStopBlocks)
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
			for _, s := range po.keys {
				sp := child(at, s)
				okState := stateKey("policies", sp, s)
				pr := po.vals[s]
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
			for _, state := range ao.keys {
				sp := child(ap, state)
				stateOK := true
				if state == "" {
					p.errorf(CodeBadValue, sp, "", "simulation.agent_steps keys must be non-empty strings")
					stateOK = false
				} else if p.statesOK && !def.HasState(state) {
					p.errorf(CodeUnknownState, sp, "", "simulation.agent_steps references unknown state: %s", state)
					stateOK = false
				}
				lr := ao.vals[state]
				if !lr.IsArray() {
					p.errorf(CodeBadType, sp, "", "simulation.agent_steps.%s must be a list (got %s)", state, jsonkind.Name(lr))
					continue
				}
				steps := []AgentStep{}
				for i, step := range lr.Array() {
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
			for i, item := range vr.Array() {
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
	for i, rr := range er.Array() {
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
		owner := fmt.Sprintf("rule %d (%s)", i, rule.CodexEvent)
		if wr, ok := ro.get("when"); ok {
			rule.When = p.matcher(wr, child(rp, "when"), owner)
		}
		if rec, ok := ro.get("record"); ok {
			rule.Record = p.record(rec, child(rp, "record"))
		}
		_, hasRecord := ro.get("record")
		if er, ok := ro.get("emit"); ok {
			emit, good := p.stringValue(er, fmt.Sprintf("codex.event_map[%d].emit", i), child(rp, "emit"))
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
		if !intLiteral.MatchString(lit) || err != nil {
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
		if (er.Type != gjson.Number && er.Type != gjson.String) || !intLiteral.MatchString(lit) || err != nil {
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
		for i, item := range ir.Array() {
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
