package dsl

import (
	"encoding/json"
)

// Spec is a whole hook-loop DSL file after loading: the loop, its simulation and
// its event map. Load builds it; nothing else mutates it.
type Spec struct {
	Path       string // file it came from ("" for embedded or in-memory specs)
	Definition *Definition
	Simulation Simulation
	EventMap   []Rule // codex.event_map, in file order
}

// Definition is the "loop" object.
type Definition struct {
	ID             string
	InitialState   string
	States         []string
	Events         []string
	Transitions    []Transition
	TerminalStates []string // default: the "done"/"stopped" states present
	StopState      string   // default: "stopped" when it is a terminal state

	// Extensions (optional keys the Python original did not have).
	Instructions  map[string]string      // state -> what the agent must do there
	MaxStopBlocks int                    // 0 = never capped; absent key: DefaultMaxStopBlocks
	Scope         string                 // "session" (default) or "project"
	Policies      map[string]StatePolicy // state -> tool policy while in that state
	WaitsForHuman []string               // states in which the loop waits for a person
	// Approval maps a waits_for_human state to the loop events a person's
	// `hook-loop approve` / `reject` applies there.
	Approval map[string]Approval
	// Mode is how the loop acts on what it would refuse: ModeEnforce (default),
	// ModeWarn or ModeAudit.
	Mode       string
	FailClosed bool                       // on internal errors refuse stops and risky tools
	Guardrails Guardrails                 // built-in tool policy knobs
	Raw        map[string]json.RawMessage // the loop object as written, for unknown keys
}

// Approval names the loop events a person's decision applies in a waiting state.
type Approval struct {
	Approve string // event `hook-loop approve` applies
	Reject  string // event `hook-loop reject` applies ("": reject is refused)
}

// Modes of a loop (loop.mode): what happens to a tool call or a stop the loop
// would refuse.
const (
	ModeEnforce = "enforce" // refuse it (the default)
	ModeWarn    = "warn"    // let it through, tell the model what would have been refused, record would_block
	ModeAudit   = "audit"   // let it through silently, record would_block
)

// ValidMode reports whether m names a mode.
func ValidMode(m string) bool { return m == ModeEnforce || m == ModeWarn || m == ModeAudit }

// DefaultMaxStopBlocks is the number of consecutive refused stops after which the
// engine lets the agent stop and records the outcome "capped".
const DefaultMaxStopBlocks = 8

// Scope values.
const (
	ScopeSession = "session"
	ScopeProject = "project"
)

// Transition is one edge of the machine.
type Transition struct {
	From         string
	Event        string
	To           string
	Guards       []string
	Actions      []string
	ResumePolicy string
}

// StatePolicy restricts the tools the agent may use while the loop is in a state.
type StatePolicy struct {
	DenyTools        []string // tool names refused in this state
	AllowTools       []string // when non-empty, only these tools are allowed
	DenyCommandMatch *Pattern // Bash commands matching this are refused
	// AllowPathMatch exempts writes whose every target path matches it from
	// DenyTools (e.g. let the agent write PLAN.md while planning).
	AllowPathMatch *Pattern
	Reason         string // what the model is told
}

// Guardrails are the built-in tool checks of PreToolUse / PermissionRequest.
type Guardrails struct {
	RiskyCommands    bool     // refuse rm -r, git reset --hard, git push --force, ... (default true)
	ProtectLoopFiles bool     // refuse writes to the DSL, .hook-loop/, hook configs (default true)
	ProtectedPaths   []string // extra path patterns refused for writes (default: ".git/")
}

// Simulation is the "simulation" object.
type Simulation struct {
	Budget     Budget
	AgentSteps map[string][]AgentStep
	Verdicts   []Verdict
}

// Budget bounds a simulated run.
type Budget struct {
	MaxTurns           int // default 10
	MaxNoProgressTurns int // default 2
}

// AgentStep is one scripted step of the fake agent.
type AgentStep struct {
	Event   string
	Payload map[string]any
}

// Verdict statuses.
const (
	VerdictPass      = "PASS"
	VerdictNeedsWork = "NEEDS_WORK"
)

// Verdict is an evaluator verdict ("PASS" / "NEEDS_WORK") with its details.
type Verdict struct {
	Status  string
	Details string
}

// Rule is one codex.event_map entry.
type Rule struct {
	Index          int    // position in codex.event_map
	CodexEvent     string // canonical event name it listens to
	When           Matcher
	Emit           string // loop event to apply ("" = record only)
	Record         *RecordSpec
	GuardSatisfied []string
	Comment        string
}

// Matcher is a rule's "when". Every set field must match (AND); an empty matcher
// always matches.
type Matcher struct {
	ToolName         string
	CommandMatch     *Pattern
	PromptMatch      *Pattern
	PromptNotMatch   *Pattern
	LastMessageMatch *Pattern // extension: Stop/SubagentStop last_assistant_message
	PathMatch        *Pattern // extension: any of the call's TargetPaths
	ExitCode         *int     // nil = not constrained
	ExitCodeNot      *int     // extension "exit_code_not": a known exit code other than this
}

// RecordSpec is a side event appended when a rule matches.
type RecordSpec struct {
	EventType string
	Actor     string
	Payload   map[string]any
	Include   []string // command, exit_code, stdout, prompt, tool_name, paths, last_message
}
