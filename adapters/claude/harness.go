package claude

import (
	"path/filepath"

	"github.com/hook-loop/hook-loop/adapters/harness"
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

// hookProject prefers CLAUDE_PROJECT_DIR, which Claude Code exports.
var hookProject = harness.ProjectFrom("CLAUDE_PROJECT_DIR")

// OwnedPaths are the settings files install merges its hooks into: the
// project's shared and local ones and the user's. Not the whole .claude
// folder: it also holds the person's agents and commands.
func (claudeHooks) OwnedPaths(home string, _ func(string) string) []string {
	out := []string{".claude/settings.json", ".claude/settings.local.json"}
	if home != "" {
		// The installed plugins' folder too: a plugin declares hooks of its
		// own (a Stop hook answering continue:false ends the session
		// whatever hook-loop answers), and Claude Code runs an enabled one's.
		out = append(out, filepath.Join(home, ".claude", "settings.json"), filepath.Join(home, ".claude", "plugins")+string(filepath.Separator))
	}
	return out
}
