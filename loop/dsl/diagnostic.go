package dsl

import (
	"fmt"
	"strings"
	"sync"

	"github.com/hook-loop/hook-loop/loop"
)

// Severity of a Diagnostic.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
)

// Diagnostic codes. They are part of validate --json's contract: tools key on them,
// so a code is never renamed or reused for another problem.
const (
	// Errors: the file cannot be used.
	CodeUnreadableFile         = "unreadable_file"
	CodeInvalidJSON            = "invalid_json"
	CodeMissingField           = "missing_field"
	CodeBadType                = "bad_type"
	CodeBadValue               = "bad_value"
	CodeUnknownState           = "unknown_state"
	CodeUnknownEvent           = "unknown_event"
	CodeUnknownCodexEvent      = "unknown_codex_event"
	CodeDuplicateState         = "duplicate_state"
	CodeDuplicateEvent         = "duplicate_event"
	CodeDuplicateTerminalState = "duplicate_terminal_state"
	CodeDuplicateTransition    = "duplicate_transition"
	CodeNoTerminalStates       = "no_terminal_states"
	CodeStopStateNotTerminal   = "stop_state_not_terminal"
	CodeBadRegex               = "bad_regex"
	CodeEmitWithoutTransition  = "emit_without_transition"
	CodeStepWithoutTransition  = "step_without_transition"

	// Warnings: the file loads, but the loop probably does not do what its author
	// meant.
	CodeDuplicateKey        = "duplicate_key"
	CodeNoStopState         = "no_stop_state"
	CodeUnknownInclude      = "unknown_include"
	CodeUnreachableState    = "unreachable_state"
	CodeNoPathToTerminal    = "no_path_to_terminal"
	CodeEventNeverEmitted   = "event_never_emitted"
	CodeMatcherNeverMatches = "matcher_never_matches"
	CodeGuardNeverSatisfied = "guard_never_satisfied"
	CodeNoEventMap          = "no_event_map"
)

// Diagnostic is one problem found in a DSL file, located by the JSON path of the
// offending value (e.g. "loop.transitions[3].to"; "" for the whole document).
type Diagnostic struct {
	Code     string `json:"code"`
	Severity string `json:"severity"`
	Path     string `json:"path"`
	Message  string `json:"message"`
	Hint     string `json:"hint"`
}

// String renders "path: message" (or just the message for document-level problems).
func (d Diagnostic) String() string {
	if d.Path == "" {
		return d.Message
	}
	return d.Path + ": " + d.Message
}

// IsError reports whether d makes the file unusable.
func (d Diagnostic) IsError() bool { return d.Severity == SeverityError }

// Diagnostics are every problem of one file, in the order they were found.
type Diagnostics []Diagnostic

// Errors returns the error-severity diagnostics.
func (ds Diagnostics) Errors() Diagnostics { return ds.filter(SeverityError) }

// Warnings returns the warning-severity diagnostics.
func (ds Diagnostics) Warnings() Diagnostics { return ds.filter(SeverityWarning) }

// HasErrors reports whether any diagnostic is an error.
func (ds Diagnostics) HasErrors() bool { return len(ds.Errors()) > 0 }

func (ds Diagnostics) filter(sev string) Diagnostics {
	out := Diagnostics{}
	for _, d := range ds {
		if d.Severity == sev {
			out = append(out, d)
		}
	}
	return out
}

// LoadError is returned by Load and Parse when a file has error diagnostics. Its
// text is the first error, prefixed with the file and the JSON path, in the
// Python original's wording ("transition references unknown state: x").
type LoadError struct {
	File        string
	Diagnostics Diagnostics // every diagnostic, warnings included
}

func (e *LoadError) Error() string {
	errs := e.Diagnostics.Errors()
	if len(errs) == 0 {
		return e.File + ": invalid DSL file"
	}
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File + ": ")
	}
	b.WriteString(errs[0].String())
	if n := len(errs) - 1; n == 1 {
		b.WriteString(" (and 1 more error)")
	} else if n > 1 {
		fmt.Fprintf(&b, " (and %d more errors)", n)
	}
	return b.String()
}

// First returns the first error diagnostic.
func (e *LoadError) First() Diagnostic {
	if errs := e.Diagnostics.Errors(); len(errs) > 0 {
		return errs[0]
	}
	return Diagnostic{}
}

// defaultHints say how to fix each kind of problem; a diagnostic may carry a more
// specific one. Built on first use: a hook parses loops that passed validation
// and reports nothing, and a map built at init is paid by every hook process.
var defaultHints = sync.OnceValue(func() map[string]string {
	return map[string]string{
		CodeUnreadableFile:         "check the file name and its permissions",
		CodeInvalidJSON:            "fix the JSON syntax at the given line and column",
		CodeMissingField:           "add the field",
		CodeBadType:                "change the value to the expected JSON type",
		CodeBadValue:               "use one of the allowed values",
		CodeUnknownState:           "declare the state in loop.states or fix the name",
		CodeUnknownEvent:           "declare the event in loop.events or fix the name",
		CodeUnknownCodexEvent:      "use one of: " + strings.Join(loop.CanonicalEvents, ", "),
		CodeDuplicateState:         "remove the repeated state",
		CodeDuplicateEvent:         "remove the repeated event",
		CodeDuplicateTerminalState: "remove the repeated terminal state",
		CodeDuplicateTransition:    "a state may have only one transition per event: remove or merge one",
		CodeNoTerminalStates:       "add a \"done\" state or list loop.terminal_states",
		CodeStopStateNotTerminal:   "list the stop state in loop.terminal_states or pick a terminal state",
		CodeBadRegex:               "hook-loop uses Go RE2 syntax: no lookaround or backreferences; inline flags like (?i) work",
		CodeEmitWithoutTransition:  "add a transition on this event or emit another event",
		CodeStepWithoutTransition:  "add a transition for this state and event or change the step",
		CodeDuplicateKey:           "remove one of the repeated keys (the last one is used)",
		CodeNoStopState:            "set loop.stop_state to a terminal state (simulate needs one)",
		CodeUnknownInclude:         "include may name: " + strings.Join(RecordIncludes, ", "),
		CodeUnreachableState:       "add a transition into this state or remove it",
		CodeNoPathToTerminal:       "add a transition that leads from this state towards a terminal state",
		CodeEventNeverEmitted:      "add a codex.event_map rule that emits this event",
		CodeMatcherNeverMatches:    "remove the condition or listen to an event that carries that field",
		CodeGuardNeverSatisfied:    "list the guard in guard_satisfied of a rule that emits this event",
		CodeNoEventMap:             "add codex.event_map rules that emit the loop's events, as the gallery loops do (hook-loop init writes one)",
	}
})

// RecordIncludes are the facts a rule's record.include may copy into the payload.
var RecordIncludes = []string{"command", "exit_code", "stdout", "prompt", "tool_name", "paths", "last_message"}

// BuiltinGuards are guards hook-loop satisfies itself. evidence_bound_to_criteria
// holds once the session has an evidence_registered event (the simulation grants
// it on an evaluator PASS).
var BuiltinGuards = []string{GuardEvidenceBound}

// GuardEvidenceBound is the Python original's built-in guard.
const GuardEvidenceBound = "evidence_bound_to_criteria"
