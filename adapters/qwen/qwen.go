// Package qwen is the Qwen Code adapter. Qwen Code 0.24 reads hooks in Claude
// Code's shape (settings.json hooks, the same event names, payload keys and
// answers: ../shared/harness/qwen/payloads), so its adapter is Claude Code's
// decoder and encoder in Qwen's dialect: its own tool names
// (run_shell_command, write_file, edit) and a shell result whose exit code is
// only in tool_response.llmContent ("Exit Code: N").
package qwen

import (
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hook-loop/hook-loop/adapters/claude"
	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/loop"
	"github.com/tidwall/gjson"
)

// Name is the adapter's short name, as recorded in HookEvent.Harness.
const Name = "qwen"

// ProjectDirVar is what Qwen Code exports to every hook: the project
// directory (captured: QWEN_PROJECT_DIR, besides GEMINI_ and CLAUDE_PROJECT_DIR).
const ProjectDirVar = "QWEN_PROJECT_DIR"

// tools maps Qwen Code's tool names to the canonical ones; the rest keep
// their own names (read_file's input is absolute_path, not file_path).
var tools = harness.Table{
	{"run_shell_command", "Bash"},
	{"write_file", "Write"},
	{"edit", "Edit"},
	{"replace", "Edit"},
	{"notebook_edit", "NotebookEdit"},
}

// Dialect is Qwen Code's flavour of Claude Code's hook protocol.
var Dialect = claude.Dialect{Name: Name, Product: "Qwen Code", Tool: canonicalTool, Result: result, DirKey: "directory"}

func canonicalTool(native string) string {
	if c, ok := tools.Lookup(native); ok {
		return c
	}
	return native
}

// New returns the Qwen Code adapter.
func New() claude.Adapter { return claude.NewFor(&Dialect) }

// trailerKeys are the lines Qwen Code's shell tool ends its text with, in
// its order, each "(none)" when there is none (a killed command has no exit
// code).
var trailerKeys = []string{"Exit Code", "Signal", "Process Group PGID"}

// truncated starts the text Qwen Code sends instead of a shell tool's text
// too long to keep whole; the kept head and tail follow truncatedPart.
const (
	truncated     = "Tool output was too large and has been truncated"
	truncatedPart = "\nTruncated part of the output:\n"
)

// shellText reports whether text is Qwen Code's report of a command that ran
// to its end ("Command: ...", or "Directory: ..." without it), the one shape
// that carries Qwen's trailer. A cancelled or timed-out command's text is a
// sentence and the command's own output: a trailer in it is the command's.
func shellText(text string) bool {
	if strings.HasPrefix(text, truncated) {
		i := strings.Index(text, truncatedPart)
		if i < 0 {
			return false
		}
		text = text[i+len(truncatedPart):]
	}
	return strings.HasPrefix(text, "Command: ") || strings.HasPrefix(text, "Directory: ")
}

// exitCode reads the exit code from Qwen Code's trailer (harness.Trailer):
// the last block, since the command's output comes first and may print lines
// of the same shape ("echo 'Exit Code: 0'; kill -9 $$" must not pass for a
// success). Lines after it are the notes Qwen appends (a long run's hint). A
// signal, or an exit code that is not a number, leaves it unknown.
func exitCode(text string) *int {
	lines := strings.Split(text, "\n")
	for len(lines) > 0 && !isTrailerLine(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	trailer, _ := harness.Trailer(lines, trailerKeys...)
	if s, ok := trailer["Signal"]; ok && s != "(none)" {
		return nil
	}
	n, err := strconv.Atoi(trailer["Exit Code"])
	if err != nil {
		return nil
	}
	return &n
}

func isTrailerLine(line string) bool {
	for _, k := range trailerKeys {
		if strings.HasPrefix(line, k+": ") {
			return true
		}
	}
	return false
}

// result builds a tool's result. PostToolUse's tool_response is
// {llmContent, returnDisplay}: a shell command's exit code is only in
// llmContent (Qwen Code reports a command that exits non-zero as a
// PostToolUse too); any other tool that reached PostToolUse succeeded (0).
// PostToolUseFailure carries Claude Code's error string.
func result(native, tool string, root gjson.Result) *loop.ToolResult {
	if native == claude.EventPostToolUseFailure {
		r := claude.FailureResult(tool, root)
		if r.ExitCode == nil && tool == "Bash" && !root.Get("is_interrupt").Bool() {
			r.ExitCode = exitCode(r.Output)
		}
		return r
	}
	resp := root.Get("tool_response")
	text := resp.Get("llmContent")
	r := &loop.ToolResult{}
	switch {
	case text.Type == gjson.String:
		r.Output = text.Str
	case resp.Type == gjson.String:
		r.Output = resp.Str
	case resp.Exists():
		r.Output = resp.Raw
	}
	if tool == "Bash" {
		if shellText(r.Output) {
			r.ExitCode = exitCode(r.Output)
		}
		return r
	}
	r.ExitCode = loop.IntPtr(0)
	return r
}

// Hooks is Qwen Code for the hook path's registry; install.Harness adds
// install and doctor.
var Hooks harness.Hooks = qwenHooks{}

type qwenHooks struct{}

func (qwenHooks) Name() string                { return Name }
func (qwenHooks) NewAdapter() harness.Adapter { return New() }
func (qwenHooks) NativeEvents() []string      { return NativeEvents }

// NativeEvents are the events install registers: Claude Code's that Qwen Code
// 0.24 fires (it has no PostCompact).
var NativeEvents = []string{
	loop.EventSessionStart, loop.EventUserPromptSubmit, loop.EventPreToolUse,
	loop.EventPermissionRequest, loop.EventPostToolUse, claude.EventPostToolUseFailure,
	loop.EventStop, loop.EventSubagentStop, loop.EventPreCompact, loop.EventSessionEnd,
}

func (qwenHooks) Hook() harness.Hook {
	return harness.Hook{
		Usage:      "the command Qwen Code runs for a hook event (reads the event JSON on stdin)",
		UsageText:  "hook-loop qwen-hook [--event EVENT] [--config FILE] [--event-log FILE] [--hooks-config FILE] [--record]",
		EventUsage: "Qwen Code hook event name (default: the payload's hook_event_name)",
		Project:    harness.ProjectFrom(ProjectDirVar),
	}
}

// OwnedPaths are the settings files install merges its hooks into (the
// project's and the user's) and the user's trusted-folders file, whose
// DO_NOT_TRUST for the project would switch every project hook off. QWEN_HOME
// moves the user's folder and QWEN_CODE_TRUSTED_FOLDERS_PATH that file; both
// are owned wherever they point. Not the whole .qwen folder: it also holds
// the person's commands and agents.
func (qwenHooks) OwnedPaths(home string, getenv func(string) string) []string {
	out := []string{".qwen/settings.json"}
	// Skills, commands, agents and hook scripts, as Claude Code's (Qwen
	// Code's own auto-mode rules call them the agent's to leave alone).
	out = append(out, claude.CodeFolders(".qwen")...)
	// Extensions declare hooks of their own (a Stop hook answering
	// continue:false ends the session whatever hook-loop answers).
	if home != "" {
		dir := filepath.Join(home, ".qwen")
		out = append(out, filepath.Join(dir, "settings.json"), filepath.Join(dir, "trustedFolders.json"),
			filepath.Join(dir, "extensions")+string(filepath.Separator))
		out = append(out, claude.CodeFolders(dir)...)
	}
	if getenv != nil {
		if dir := getenv("QWEN_HOME"); dir != "" && filepath.IsAbs(dir) {
			dir = filepath.Clean(dir)
			out = append(out, filepath.Join(dir, "settings.json"), filepath.Join(dir, "trustedFolders.json"),
				filepath.Join(dir, "extensions")+string(filepath.Separator))
			out = append(out, claude.CodeFolders(dir)...)
		}
		if p := getenv("QWEN_CODE_TRUSTED_FOLDERS_PATH"); p != "" && filepath.IsAbs(p) {
			out = append(out, filepath.Clean(p))
		}
	}
	return out
}
