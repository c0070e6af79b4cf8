package claude

import (
	"io"
	"path/filepath"

	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/project"
)

// Hooks is Claude Code for the hook path's registry; install.Harness adds
// install and doctor.
var Hooks harness.Hooks = claudeHooks{}

type claudeHooks struct{}

func (claudeHooks) Name() string                { return "claude" }
func (claudeHooks) NewAdapter() harness.Adapter { return New() }
func (claudeHooks) NativeEvents() []string      { return NativeEvents }

func (claudeHooks) Hook() harness.Hook {
	return harness.Hook{
		Usage:      "the command Claude Code runs for a hook event (reads the event JSON on stdin)",
		UsageText:  "hook-loop claude-hook [--event EVENT] [--config FILE] [--event-log FILE] [--hooks-config FILE] [--record]",
		EventUsage: "Claude Code hook event name (default: the payload's hook_event_name)",
		Project:    hookProject,
	}
}

// hookProject prefers CLAUDE_PROJECT_DIR, which Claude Code exports, so a hook
// started elsewhere still finds the project. Without --config (a user-scope
// install serves every project) a project with neither a loop file nor a log is
// not gated: Claude Code proceeds and the person is not told on every event that
// a loop is missing. A project with a log was gated: deleting its loop file must
// not ungate it, so hook-loop runs there and judges by the pinned loop (or
// refuses, saying how to restore or uninstall).
func hookProject(in io.Reader, getenv func(string) string, configPath, cwd string) (string, bool) {
	if d := getenv("CLAUDE_PROJECT_DIR"); d != "" && configPath == "" {
		cwd = d
	}
	if configPath == "" && !project.Gated(project.Root(cwd)) {
		io.Copy(io.Discard, in) //nolint:errcheck // drain stdin so Claude never sees a broken pipe
		return cwd, false
	}
	return cwd, true
}

// OwnedPaths are the settings files install merges its hooks into: the
// project's shared and local ones and the user's. Not the whole .claude
// folder: it also holds the person's agents and commands.
func (claudeHooks) OwnedPaths(home string, _ func(string) string) []string {
	out := []string{".claude/settings.json", ".claude/settings.local.json"}
	if home != "" {
		out = append(out, filepath.Join(home, ".claude", "settings.json"))
	}
	return out
}
