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

// OwnedPaths are the settings files install merges its hooks into (the
// project's shared and local ones and the user's), and the folders of what
// declares hooks or runs shell text no hook sees: skills and commands (their
// frontmatter hooks and !`command` lines, run when the model invokes one),
// agents (frontmatter hooks), hooks (where people keep the scripts their
// settings' hook commands run) and the installed plugins (a plugin's Stop hook
// answering continue:false ends the session whatever hook-loop answers).
// Not the whole .claude folder: the rest is the person's.
func (claudeHooks) OwnedPaths(home string, _ func(string) string) []string {
	out := []string{".claude/settings.json", ".claude/settings.local.json"}
	out = append(out, CodeFolders(".claude")...)
	if home != "" {
		out = append(out, filepath.Join(home, ".claude", "settings.json"), filepath.Join(home, ".claude", "plugins")+string(filepath.Separator))
		out = append(out, CodeFolders(filepath.Join(home, ".claude"))...)
	}
	return out
}

// CodeFolders are the folders under dir (.claude, or a harness's like it:
// Qwen Code's .qwen) of skills, commands and agents, and the customary
// folder of hook scripts, each ending in a separator.
func CodeFolders(dir string) []string {
	var out []string
	for _, d := range []string{"skills", "commands", "agents", "hooks"} {
		out = append(out, filepath.Join(dir, d)+string(filepath.Separator))
	}
	return out
}
