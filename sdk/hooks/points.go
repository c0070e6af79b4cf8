// Package hooks is what a Go program imports to write a hook-loop lifecycle hook:
// the eight points, their typed contexts, one small interface per point, and the
// server half of the JSON-RPC 2.0 wire (HandleRequest, ServeStdio; over HTTP: package hookshttp).
//
// A context is facts (read-only: changing them changes nothing) plus decision
// fields. A hook edits the decision fields in place and returns nil; hook-loop
// reads back only the decisions that changed. A point a handler does not implement
// passes through.
//
// This package deliberately does not import hook-loop's engine, so that an
// executor's module depends on nothing but this package.
package hooks

import (
	"encoding/json"
	"reflect"
	"strings"
)

// Point names, in the order a loop meets them. They are the JSON-RPC method names.
const (
	PointLoopStart       = "loop_start"
	PointSessionStart    = "session_start"
	PointSessionSpawned  = "session_spawned"
	PointInputReceived   = "input_received"
	PointToolRequested   = "tool_requested"
	PointPhaseChanged    = "phase_changed"
	PointWaitingForInput = "waiting_for_input"
	PointLoopComplete    = "loop_complete"
)

// Facts are what every point knows about the loop and the session. With is not a
// fact of the loop: the runner sets it, per executor, to the entry's `with` object
// so one executor binary can serve differently configured entries.
type Facts struct {
	LoopID    string         `json:"loop_id" doc:"the loop's id (the DSL's loop.id)"`
	SessionID string         `json:"session_id" doc:"the harness session id"`
	Harness   string         `json:"harness" doc:"codex | claude | opencode | pi"`
	Cwd       string         `json:"cwd" doc:"the directory the harness reports"`
	State     string         `json:"state" doc:"the loop's current state"`
	Actor     string         `json:"actor" doc:"who brought this moment about: agent (a harness's hook event) | person (a control: the CLI or the board) | simulate"`
	With      map[string]any `json:"with,omitempty" doc:"the entry's with object from the hooks config"`
}

// LoopStartContext is the context of loop_start: fired once, when hook-loop first
// sees a session of this loop.
type LoopStartContext struct {
	Facts
	Command string `json:"command" doc:"what armed the session: the harness event first seen (SessionStart, UserPromptSubmit, ...) or a person's control (approve, advance, ...)"`
	Proceed bool   `json:"proceed" hook:"decision" doc:"false: the session is held: its tool calls and stop are refused with reason (default true)"`
	Reason  string `json:"reason" hook:"decision" doc:"why, recorded with a refusal"`
}

// SessionStartContext is the context of session_start: every harness SessionStart.
type SessionStartContext struct {
	Facts
	Source  string `json:"source" doc:"what started the session: startup | resume | clear | compact ..."`
	Model   string `json:"model" doc:"the model the harness reports; empty when it reports none"`
	Respawn bool   `json:"respawn" doc:"true when the harness resumes a session it had (source resume)"`
	Context string `json:"context" hook:"decision" doc:"the text hook-loop will inject (prefilled; replaced)"`
	Proceed bool   `json:"proceed" hook:"decision" doc:"false: the session start is refused (default true)"`
	Reason  string `json:"reason" hook:"decision" doc:"the refusal's message to the harness"`
}

// SessionSpawnedContext is the context of session_spawned: the session's first
// event has been recorded (loop_started).
type SessionSpawnedContext struct {
	Facts
	HarnessSessionID string `json:"harness_session_id" doc:"the harness's own session id (empty when it gave none)"`
	Event            string `json:"event" doc:"the harness event that showed the session first (SessionStart, UserPromptSubmit, PreToolUse, ...)"`
	Source           string `json:"source" doc:"for a SessionStart: startup | resume | clear | compact ..."`
	Model            string `json:"model" doc:"the model the harness reports; empty when it reports none"`
	Respawn          bool   `json:"respawn" doc:"true when the harness resumes a session it had (source resume)"`
	Announce         string `json:"announce" hook:"decision" doc:"text the agent is given with hook-loop's answer to that first event (empty: nothing)"`
}

// InputReceivedContext is the context of input_received: a person's prompt, before
// it is matched against the loop's rules, or a person's control (approve,
// advance, pause, ...) before it acts.
type InputReceivedContext struct {
	Facts
	Kind     string `json:"kind" doc:"prompt (typed into the harness) | command (a control: the CLI or the board)"`
	Source   string `json:"source" doc:"harness (the harness's prompt hook) | person (hook-loop's controls)"`
	Command  string `json:"command" doc:"the control, for a command (approve, reject, advance, reset, pause, resume, cancel); empty otherwise"`
	Event    string `json:"event" doc:"the harness event, for a prompt (UserPromptSubmit); the loop event advance applies, for a command"`
	Endpoint string `json:"endpoint" doc:"the session the input lands in, for a prompt; empty for a command"`
	Prompt   string `json:"prompt" doc:"the person's prompt; for a command, the reason the person gave"`
	Context  string `json:"context" hook:"decision" doc:"text added to the prompt (empty: nothing added; ignored for a command)"`
	Proceed  bool   `json:"proceed" hook:"decision" doc:"false: the prompt is refused, or the command is not carried out (default true)"`
	Reason   string `json:"reason" hook:"decision" doc:"the refusal's message to the harness"`
}

// ToolRequestedContext is the context of tool_requested: before a tool runs, after
// hook-loop's own policy allowed it.
type ToolRequestedContext struct {
	Facts
	ToolName  string          `json:"tool_name" doc:"canonical tool name: Bash, Write, Edit, apply_patch, ..."`
	ToolInput json.RawMessage `json:"tool_input,omitempty" doc:"the tool's arguments as the harness sent them"`
	Command   string          `json:"command" doc:"the shell command of a Bash call; empty otherwise"`
	Paths     []string        `json:"paths" doc:"the files the call writes, absolute"`
	Proceed   bool            `json:"proceed" hook:"decision" doc:"false: the tool call is refused (default true)"`
	Reason    string          `json:"reason" hook:"decision" doc:"the refusal's message to the harness"`
}

// PhaseChangedContext is the context of phase_changed: a transition was applied.
type PhaseChangedContext struct {
	Facts
	From      string `json:"from" doc:"the state before the transition"`
	To        string `json:"to" doc:"the state after it"`
	Event     string `json:"event" doc:"the loop event that caused it"`
	FromPhase string `json:"from_phase" doc:"the state before (the design's phase is hook-loop's state)"`
	ToPhase   string `json:"to_phase" doc:"the state after"`
	Outcome   string `json:"outcome" doc:"the loop event that routed the transition (as event)"`
	Terminal  bool   `json:"terminal" doc:"true when to is a terminal state: the loop is complete"`
	Notify    bool   `json:"notify" hook:"decision" doc:"false: the phase change is not announced (default true)"`
	Message   string `json:"message" hook:"decision" doc:"the announcement's text (empty: hook-loop's own)"`
}

// WaitingForInputContext is the context of waiting_for_input: the loop reached a
// state listed in loop.waits_for_human (State names it).
type WaitingForInputContext struct {
	Facts
	Kind     string `json:"kind" doc:"gate: a state that waits for a person (hook-loop has no agent questions)"`
	Node     string `json:"node" doc:"the state that waits"`
	Question string `json:"question" hook:"decision" doc:"what the person is asked"`
	Summary  string `json:"summary" hook:"decision" doc:"a one-line summary of where the loop stands"`
}

// LoopCompleteContext is the context of loop_complete: a terminal state is reached.
type LoopCompleteContext struct {
	Facts
	FinalState string `json:"final_state" doc:"the terminal state reached"`
	Outcome    string `json:"outcome" doc:"how the loop ended: completed (a terminal state), stopped (its stop state), cancelled (a person's cancel) or forced (the harness ended the session over refused stops)"`
	Source     string `json:"source" doc:"harness (a hook event ended it) | person (a control ended it)"`
	Announce   bool   `json:"announce" hook:"decision" doc:"false: completion is not announced (default true)"`
}

// Field describes one field of a point's context, read from the type's tags.
type Field struct {
	Name string // the JSON name
	Type string // string | bool | []string | object | json
	Doc  string
}

// Point describes one lifecycle point. Points is the only list of them.
type Point struct {
	Name        string
	Description string
	// New returns a pointer to a fresh context of this point with its decision
	// defaults set (proceed, notify and announce true).
	New func() any
}

// Points are the eight lifecycle points, in the order a loop meets them.
var Points = []Point{
	{PointLoopStart, "once, when hook-loop first sees a session of this loop", func() any { return &LoopStartContext{Proceed: true} }},
	{PointSessionStart, "every harness SessionStart, with the text hook-loop will inject", func() any { return &SessionStartContext{Proceed: true} }},
	{PointSessionSpawned, "after a session's first event is recorded", func() any { return &SessionSpawnedContext{} }},
	{PointInputReceived, "a person's prompt, before it is matched; a person's control, before it acts", func() any { return &InputReceivedContext{Proceed: true} }},
	{PointToolRequested, "before a tool runs, after hook-loop's own policy", func() any { return &ToolRequestedContext{Proceed: true} }},
	{PointPhaseChanged, "a transition was applied", func() any { return &PhaseChangedContext{Notify: true} }},
	{PointWaitingForInput, "the loop reaches a state that waits for a person", func() any { return &WaitingForInputContext{} }},
	{PointLoopComplete, "a terminal state is reached", func() any { return &LoopCompleteContext{Announce: true} }},
}

// PointNames lists the point names in order.
func PointNames() []string {
	names := make([]string, len(Points))
	for i, p := range Points {
		names[i] = p.Name
	}
	return names
}

// Lookup returns the point named name.
func Lookup(name string) (Point, bool) {
	for _, p := range Points {
		if p.Name == name {
			return p, true
		}
	}
	return Point{}, false
}

// designAliases are the point names of the lifecycle-hook design hook-loop
// adopted (a delivery system's work items) with hook-loop's own, so a
// declaration written with the design's names loads; docs/lifecycle.md says
// why each was renamed. A static array, unlike a package-level map, costs
// the hook nothing at start-up.
var designAliases = [...][2]string{
	{"work_item_start", PointLoopStart},
	{"session_spawn", PointSessionStart},
	{"work_item_complete", PointLoopComplete},
}

// DesignAliases maps the design's point names to hook-loop's own (a new map
// on each call).
func DesignAliases() map[string]string {
	m := make(map[string]string, len(designAliases))
	for _, a := range designAliases {
		m[a[0]] = a[1]
	}
	return m
}

// Canonical returns hook-loop's name of point: the point itself, or the one a
// design name stands for.
func Canonical(name string) (string, bool) {
	if _, ok := Lookup(name); ok {
		return name, true
	}
	for _, a := range designAliases {
		if a[0] == name {
			return a[1], true
		}
	}
	return "", false
}

// PointOf returns the point whose context type c (a pointer) is, or "".
func PointOf(c any) string {
	t := reflect.TypeOf(c)
	for _, p := range Points {
		if reflect.TypeOf(p.New()) == t {
			return p.Name
		}
	}
	return ""
}

// Facts lists the point's fact fields, common facts first.
func (p Point) Facts() []Field { return fields(p.New(), false) }

// Decisions lists the point's decision fields.
func (p Point) Decisions() []Field { return fields(p.New(), true) }

// HasDecision reports whether the point carries the decision field name.
func (p Point) HasDecision(name string) bool {
	for _, f := range p.Decisions() {
		if f.Name == name {
			return true
		}
	}
	return false
}

// Constructors with the decision defaults set. Build contexts with these (or
// Point.New): a literal LoopStartContext{} has Proceed false, which refuses.

// NewLoopStart returns a loop_start context with proceed true.
func NewLoopStart(f Facts) *LoopStartContext { return &LoopStartContext{Facts: f, Proceed: true} }

// NewSessionStart returns a session_start context with proceed true and the text
// hook-loop will inject; a resumed session is a respawn, as in session_spawned.
func NewSessionStart(f Facts, source, context string) *SessionStartContext {
	return &SessionStartContext{Facts: f, Source: source, Respawn: source == "resume", Context: context, Proceed: true}
}

// NewSessionSpawned returns a session_spawned context.
func NewSessionSpawned(f Facts, event, source, model string) *SessionSpawnedContext {
	return &SessionSpawnedContext{Facts: f, HarnessSessionID: f.SessionID, Event: event, Source: source, Model: model, Respawn: source == "resume"}
}

// NewInputReceived returns an input_received context of a prompt typed into
// the harness, with proceed true.
func NewInputReceived(f Facts, prompt string) *InputReceivedContext {
	return &InputReceivedContext{Facts: f, Kind: "prompt", Source: "harness", Event: "UserPromptSubmit", Endpoint: f.SessionID, Prompt: prompt, Proceed: true}
}

// NewCommandReceived returns an input_received context of a person's control
// (command), with proceed true; event is advance's loop event, reason what the
// person gave.
func NewCommandReceived(f Facts, command, event, reason string) *InputReceivedContext {
	return &InputReceivedContext{Facts: f, Kind: "command", Source: "person", Command: command, Event: event, Prompt: reason, Proceed: true}
}

// NewToolRequested returns a tool_requested context with proceed true.
func NewToolRequested(f Facts, tool string, input json.RawMessage, command string, paths []string) *ToolRequestedContext {
	return &ToolRequestedContext{Facts: f, ToolName: tool, ToolInput: input, Command: command, Paths: paths, Proceed: true}
}

// NewPhaseChanged returns a phase_changed context with notify true.
func NewPhaseChanged(f Facts, from, to, event string, terminal bool) *PhaseChangedContext {
	return &PhaseChangedContext{Facts: f, From: from, To: to, Event: event, FromPhase: from, ToPhase: to, Outcome: event, Terminal: terminal, Notify: true}
}

// NewWaitingForInput returns a waiting_for_input context with the default question
// and summary hook-loop would use.
func NewWaitingForInput(f Facts, question, summary string) *WaitingForInputContext {
	return &WaitingForInputContext{Facts: f, Kind: "gate", Node: f.State, Question: question, Summary: summary}
}

// NewLoopComplete returns a loop_complete context with announce true.
func NewLoopComplete(f Facts, finalState, outcome string) *LoopCompleteContext {
	source := "harness"
	if f.Actor == "person" {
		source = "person"
	}
	return &LoopCompleteContext{Facts: f, FinalState: finalState, Outcome: outcome, Source: source, Announce: true}
}

// Decisions returns the current values of c's decision fields, by JSON name. c is a
// pointer to one of the context types.
func Decisions(c any) map[string]any {
	v := reflect.ValueOf(c)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	out := map[string]any{}
	if v.Kind() != reflect.Struct {
		return out
	}
	for i := 0; i < v.NumField(); i++ {
		sf := v.Type().Field(i)
		if sf.Tag.Get("hook") == "decision" {
			out[jsonName(sf)] = v.Field(i).Interface()
		}
	}
	return out
}

func fields(c any, decisions bool) []Field {
	var out []Field
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			if sf.Anonymous && sf.Type.Kind() == reflect.Struct {
				walk(sf.Type)
				continue
			}
			if (sf.Tag.Get("hook") == "decision") != decisions {
				continue
			}
			out = append(out, Field{Name: jsonName(sf), Type: typeName(sf.Type), Doc: sf.Tag.Get("doc")})
		}
	}
	walk(reflect.TypeOf(c).Elem())
	return out
}

func jsonName(sf reflect.StructField) string {
	name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
	if name == "" {
		return sf.Name
	}
	return name
}

func typeName(t reflect.Type) string {
	switch {
	case t == reflect.TypeOf(json.RawMessage(nil)):
		return "json"
	case t.Kind() == reflect.String:
		return "string"
	case t.Kind() == reflect.Bool:
		return "bool"
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.String:
		return "[]string"
	case t.Kind() == reflect.Map:
		return "object"
	}
	return t.String()
}
