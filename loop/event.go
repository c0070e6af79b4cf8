package loop

import "encoding/json"

// Canonical hook event names. They use the Codex/Claude vocabulary because that is
// what codex.event_map[].codex_event names in existing DSL files.
const (
	EventSessionStart      = "SessionStart"
	EventUserPromptSubmit  = "UserPromptSubmit"
	EventPreToolUse        = "PreToolUse"
	EventPermissionRequest = "PermissionRequest"
	EventPostToolUse       = "PostToolUse"
	EventStop              = "Stop"
	EventSubagentStop      = "SubagentStop"
	EventPreCompact        = "PreCompact"
	EventPostCompact       = "PostCompact"
	EventSessionEnd        = "SessionEnd"
)

// CanonicalEvents lists every name a HookEvent may carry, in lifecycle order.
var CanonicalEvents = []string{
	EventSessionStart, EventUserPromptSubmit, EventPreToolUse, EventPermissionRequest,
	EventPostToolUse, EventStop, EventSubagentStop, EventPreCompact, EventPostCompact,
	EventSessionEnd,
}

// IsCanonicalEvent reports whether name is one of CanonicalEvents.
func IsCanonicalEvent(name string) bool {
	for _, n := range CanonicalEvents {
		if n == name {
			return true
		}
	}
	return false
}

// HookEvent is one harness event after an adapter decoded it. The engine sees only
// this type and never the harness's own JSON shape (except Raw, kept for the log).
type HookEvent struct {
	Harness    string // codex, claude, opencode, pi, replay, ...
	Name       string // canonical name (see CanonicalEvents)
	NativeName string // the harness's own event name, e.g. "tool.execute.after"

	SessionID string
	TurnID    string
	Cwd       string // the directory the harness reports (may be a subdirectory)
	// CommandDir is the directory a tool call's command runs in when the
	// call names one of its own (Gemini CLI's dir_path, Qwen Code's
	// directory, opencode's workdir), "" for Cwd; a relative one is relative
	// to Cwd. The guard reads the command's relative paths against it, as
	// the shell will.
	CommandDir string
	// Unseen says what a tool call opens that no later hook shows, "" when
	// nothing: a Codex exec_command with a terminal (tty) reads whatever
	// write_stdin types into it, and write_stdin fires no hook; one whose
	// shell is not a POSIX shell runs text the guard cannot read as shell;
	// one whose call cannot be found in the rollout has an unknown workdir.
	// The guard refuses such a call: through it the agent could run
	// anything unjudged.
	Unseen string

	ToolName  string          // canonical: Bash, Write, Edit, apply_patch, Read, ...
	ToolUseID string          // call id, when the harness gives one
	ToolInput json.RawMessage // the tool's arguments as the harness sent them
	// Command is the shell command of a Bash call ("" for other tools).
	Command string
	// TargetPaths are the files a tool call writes as the adapter decoded them
	// from the call's arguments (file_path/filePath/path, apply_patch headers,
	// heredoc patches in Bash). The engine owns the list it judges: it adds the
	// shell command's writes and resolves relative paths against Cwd.
	TargetPaths []string
	// ReadPaths are the files and folders a read tool (Read, Grep, Glob, ...)
	// names: the engine refuses hook-loop's secrets to them.
	ReadPaths []string

	Result *ToolResult // PostToolUse only

	Prompt               string // UserPromptSubmit
	LastAssistantMessage string // Stop / SubagentStop
	StopHookActive       bool   // Stop: the harness says a stop hook already blocked this turn
	Source               string // SessionStart: startup / resume / compact / ...; PreCompact/PostCompact: trigger; SessionEnd: reason (Claude Code)
	TranscriptPath       string
	// Model is the model the harness's payload names at its top level
	// (Codex's and Claude Code's hooks do), for lifecycle hooks.
	Model string

	Raw json.RawMessage // the harness's input, verbatim
}

// ToolResult is what a finished tool call produced.
type ToolResult struct {
	Output string // merged text as the harness reports it
	Stdout string
	Stderr string
	// ExitCode is nil when the harness did not say. An unknown exit code never
	// matches an exit_code rule.
	ExitCode *int
}

// IntPtr is a small helper for building ToolResult.ExitCode.
func IntPtr(v int) *int { return &v }
