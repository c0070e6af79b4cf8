package dsl

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/hook-loop/hook-loop/project/regfile"
	"io/fs"
	"strconv"
	"strings"

	"github.com/hook-loop/hook-loop/diag/jsonkind"
	"github.com/hook-loop/hook-loop/diag/suggest"

	"github.com/tidwall/gjson"
)

// MaxFileSize bounds what is read of a loop file, which lives where the
// agent can write (read without waiting on a FIFO, too).
const MaxFileSize = 8 << 20

// Load reads and validates the DSL file at path. It returns every diagnostic
// (warnings included); when any of them is an error the Spec is nil and the error
// is a *LoadError naming the file, the JSON path and the first problem.
func Load(path string) (*Spec, Diagnostics, error) {
	data, err := regfile.ReadFile(path, MaxFileSize)
	if err != nil {
		reason := err
		var pe *fs.PathError
		if errors.As(err, &pe) {
			reason = pe.Err
		}
		ds := Diagnostics{{
			Code: CodeUnreadableFile, Severity: SeverityError,
			Message: fmt.Sprintf("cannot read DSL file: %v", reason),
			Hint:    defaultHints()[CodeUnreadableFile],
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

// ParseTrusted parses data that passed Parse before — a session's pinned loop,
// whose content is verified by its hash — for a hook: it skips the JSON
// validator, the simulation section and the warnings, and compiles regular
// expressions on first use. The Spec's Simulation is empty. An error means the
// content was not what Parse accepted after all.
func ParseTrusted(name string, data []byte) (*Spec, error) {
	p := &parser{trusted: true}
	spec := p.document(data)
	if p.diags.HasErrors() {
		return nil, &LoadError{File: name, Diagnostics: p.diags}
	}
	return spec, nil
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
	// trusted: the content passed Parse before (ParseTrusted).
	trusted bool
	// keySlab and valSlab hold every obj's keys and values and every items'
	// elements, so that a document costs a few allocations, not one per object.
	keySlab []string
	valSlab []gjson.Result
}

func (p *parser) add(sev, code, path, hint, format string, args ...any) {
	if hint == "" {
		hint = defaultHints()[code]
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
	if !p.trusted && !p.syntax(data) {
		return nil
	}
	// About one value per 36 to 43 bytes and one key per 52 to 60 in the
	// gallery's loops; a huge file grows the slabs as it needs.
	p.valSlab = make([]gjson.Result, 0, min(len(data)/36+8, 4096))
	p.keySlab = make([]string, 0, min(len(data)/52+8, 4096))
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
	if p.trusted {
		// A hook needs neither the simulation nor the warnings, which the
		// content's first Parse reported.
		if r, ok := top.get("codex"); ok {
			spec.EventMap = p.codex(r, "codex", spec.Definition)
		}
		return spec
	}
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
	if !p.hasEventMap {
		p.warnf(CodeNoEventMap, "codex", "",
			"the loop has no codex.event_map: no rule turns a harness's hook events into loop events, so under a real harness it never moves")
	}
	p.suggestNames(spec.Definition)
	return spec
}

// suggestNames adds "did you mean" to every unknown state or event name that
// is a likely typo of a declared one: the name is the message's last word.
func (p *parser) suggestNames(def *Definition) {
	if def == nil {
		return
	}
	for i, d := range p.diags {
		var names []string
		switch d.Code {
		case CodeUnknownState:
			names = def.States
		case CodeUnknownEvent:
			names = def.Events
		default:
			continue
		}
		name := d.Message[strings.LastIndex(d.Message, " ")+1:]
		if c := suggest.Closest(name, names); c != "" {
			p.diags[i].Hint = fmt.Sprintf("did you mean %s? otherwise %s", c, d.Hint)
		}
	}
}

// obj is a JSON object with its keys in document order. A repeated key keeps its
// first position and its last value, as Python's json module (the Python original) did.
// vals[i] is keys[i]'s value. Most objects have a handful of keys, found by a
// scan without a map; index is built only past smallObject keys, so a file
// with a huge object costs linear time, not quadratic.
type obj struct {
	keys  []string
	vals  []gjson.Result
	index map[string]int
}

const smallObject = 16

func (p *parser) object(r gjson.Result, path string) obj {
	// keys and vals are cut from the parser's slabs: an object is read whole
	// before the next one starts, so each is one run of them.
	ks, vs := len(p.keySlab), len(p.valSlab)
	var o obj
	r.ForEach(func(k, v gjson.Result) bool {
		key := k.String()
		if i, dup := o.find(key); dup {
			p.warnf(CodeDuplicateKey, child(path, key), "", "key %q appears more than once; the last value is used", key)
			o.vals[i] = v
			return true
		}
		p.keySlab = append(p.keySlab, key)
		p.valSlab = append(p.valSlab, v)
		o.keys, o.vals = p.keySlab[ks:len(p.keySlab):len(p.keySlab)], p.valSlab[vs:len(p.valSlab):len(p.valSlab)]
		switch {
		case o.index != nil:
			o.index[key] = len(o.keys) - 1
		case len(o.keys) > smallObject:
			o.index = make(map[string]int, 2*len(o.keys))
			for i, k := range o.keys {
				o.index[k] = i
			}
		}
		return true
	})
	return o
}

// items are the elements of the JSON array r, cut from the parser's slab as
// object's values are (gjson's Array allocates a slice per array).
func (p *parser) items(r gjson.Result) []gjson.Result {
	vs := len(p.valSlab)
	r.ForEach(func(_, v gjson.Result) bool {
		p.valSlab = append(p.valSlab, v)
		return true
	})
	return p.valSlab[vs:len(p.valSlab):len(p.valSlab)]
}

// find is the position of key in o.keys.
func (o obj) find(key string) (int, bool) {
	if o.index != nil {
		i, ok := o.index[key]
		return i, ok
	}
	for i, k := range o.keys {
		if k == key {
			return i, true
		}
	}
	return 0, false
}

// get returns a key's value; a null value counts as absent, as the Python original's
// raw.get(key) or default did.
func (o obj) get(key string) (gjson.Result, bool) {
	i, ok := o.find(key)
	if !ok || o.vals[i].Type == gjson.Null {
		return gjson.Result{}, false
	}
	return o.vals[i], true
}

// isIdent reports whether key matches ^[A-Za-z_$][A-Za-z0-9_$-]*$. By hand, not
// a package-level regexp: compiling one at init costs every hook process.
func isIdent(key string) bool {
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c == '_', c == '$':
		case i > 0 && (c >= '0' && c <= '9' || c == '-'):
		default:
			return false
		}
	}
	return key != ""
}

// child is path.key, quoting keys that are not identifiers (path["odd key"]).
func child(path, key string) string {
	if !isIdent(key) {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// requiredString reads a required non-empty string field.
func (p *parser) requiredString(o obj, key, path string) (string, bool) {
	r, ok := o.get(key)
	if !ok {
		p.errorf(CodeMissingField, child(path, key), "", "%s must be a non-empty string", key)
		return "", false
	}
	if s, ok := nonEmptyString(r); ok {
		return s, true // no path to build when there is nothing to report
	}
	return p.stringValue(r, key, child(path, key))
}

// optionalString reads an optional non-empty string field.
func (p *parser) optionalString(o obj, key, path string) (string, bool) {
	r, ok := o.get(key)
	if !ok {
		return "", true
	}
	if s, ok := nonEmptyString(r); ok {
		return s, true
	}
	return p.stringValue(r, key, child(path, key))
}

// nonEmptyString is r's string when stringValue would accept it without a word.
func nonEmptyString(r gjson.Result) (string, bool) {
	if r.Type == gjson.String {
		if s := r.String(); s != "" {
			return s, true
		}
	}
	return "", false
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
	for i, item := range p.items(r) {
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

// isIntLiteral reports whether s matches ^-?(0|[1-9][0-9]*)$ (by hand, as isIdent).
func isIntLiteral(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" || (s[0] == '0' && len(s) > 1) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// positiveInt reads an optional positive integer (a JSON integer literal: 3.0 is
// refused, as the Python original's isinstance(value, int) did).
func (p *parser) positiveInt(o obj, key, path string, def int) int {
	return p.wholeInt(o, key, path, def, 1, "a positive integer", "use a whole number of 1 or more")
}

// wholeInt reads an optional whole number of at least low; want names what
// is expected in the error, hint says how to fix a value out of range.
func (p *parser) wholeInt(o obj, key, path string, def, low int, want, hint string) int {
	r, ok := o.get(key)
	if !ok {
		return def
	}
	at := child(path, key)
	if r.Type != gjson.Number || !isIntLiteral(r.Raw) {
		p.errorf(CodeBadType, at, "", "%s must be %s (got %s)", key, want, describe(r))
		return def
	}
	n, err := strconv.Atoi(r.Raw)
	if err != nil || n < low {
		p.errorf(CodeBadValue, at, hint, "%s must be %s (got %s)", key, want, r.Raw)
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

// regex compiles an optional pattern field with Go's RE2 (in trusted mode, on
// first use).
func (p *parser) regex(o obj, key, path, owner string) *Pattern {
	r, ok := o.get(key)
	if !ok {
		return nil
	}
	at := child(path, key)
	if r.Type != gjson.String {
		p.errorf(CodeBadType, at, "", "%s must be a string (a regular expression) (got %s)", key, jsonkind.Name(r))
		return nil
	}
	if p.trusted {
		return lazyPattern(r.String())
	}
	re, err := compilePattern(r.String())
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
