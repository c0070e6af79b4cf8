// Package qwen is the Qwen Code adapter. Qwen Code 0.24 reads hooks in Claude
// Code's shape (settings.json hooks, the same event names, payload keys and
// answers: ../shared/harness/qwen/payloads), so its adapter is Claude Code's
// decoder and encoder in Qwen's dialect: its own tool names
// (run_shell_command, write_file, edit) and a shell result whose exit code is
// only in tool_response.llmContent ("Exit Code: N").
package qwen

import (
	"path/filepath"
	"regexp"
	"strconv"
	"sync"

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
var tools = map[string]string{
	"run_shell_command": "Bash",
	"write_file":        "Write",
	"edit":              "Edit",
	"replace":           "Edit",
	"notebook_edit":     "NotebookEdit",
}

// Dialect is Qwen Code's flavour of Claude Code's hook protocol.
var Dialect = claude.Dialect{Name: Name, Product: "Qwen Code", Tool: canonicalTool, Result: result}

func canonicalTool(native string) string {
	if c, ok := tools[native]; ok {
		return c
	}
	return native
}

// New returns the Qwen Code adapter.
func New() claude.Adapter { return claude.NewFor(&Dialect) }

// exitRE finds the shell tool's exit line; "(none)" (killed by a signal)
// does not match, so that exit code stays unknown.
var exitRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^Exit Code: (-?\d+)\s*$`) })

// exitCode reads "Exit Code: N" from a shell tool's text for the model: the
// last such line, since the command's own output comes first and may print
// one ("echo 'Exit Code: 0'; false" must not pass for a success).
func exitCode(text string) *int {
	all := exitRE().FindAllStringSubmatch(text, -1)
	if len(all) == 0 {
		return nil
	}
	if n, err := strconv.Atoi(all[len(all)-1][1]); err == nil {
		return &n
	}
	return nil
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
		r.ExitCode = exitCode(r.Output)
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

// OwnedPaths are the settings files install merges its hooks into: the
// project's and the user's. Not the whole .qwen folder: it also holds the
// person's commands and agents.
func (qwenHooks) OwnedPaths(home string, _ func(string) string) []string {
	out := []string{".qwen/settings.json"}
	if home != "" {
		out = append(out, filepath.Join(home, ".qwen", "settings.json"))
	}
	return out
}
