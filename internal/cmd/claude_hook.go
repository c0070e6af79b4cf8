package cmd

import (
	"errors"
	"io"
	"io/fs"
	"os"

	"github.com/hook-loop/hook-loop/adapters/claude"
	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/internal/project"
	"github.com/urfave/cli/v2"
)

func init() { register(newClaudeHookCommand) }

func newClaudeHookCommand(s *IOStreams) *cli.Command {
	return newHookCommand(s, hookSpec{
		name:       "claude-hook",
		usage:      "the command Claude Code runs for a hook event (reads the event JSON on stdin)",
		usageText:  "hook-loop claude-hook [--event EVENT] [--config FILE] [--event-log FILE] [--hooks-config FILE] [--record]",
		eventUsage: "Claude Code hook event name (default: the payload's hook_event_name)",
		adapter:    func() harness.Adapter { return claude.New() },
		project:    claudeProject,
	})
}

// claudeProject prefers CLAUDE_PROJECT_DIR, which Claude Code exports, so a hook
// started elsewhere still finds the project. Without --config (a user-scope
// install serves every project) a project with no loop file is not gated: Claude
// Code proceeds and the person is not told on every event that a loop is missing.
func claudeProject(s *IOStreams, o *hookOptions, cwd string) (string, bool) {
	if d := os.Getenv("CLAUDE_PROJECT_DIR"); d != "" && o.ConfigPath == "" {
		cwd = d
	}
	if o.ConfigPath == "" {
		if _, err := os.Stat(project.ConfigPath(project.Root(cwd))); errors.Is(err, fs.ErrNotExist) {
			io.Copy(io.Discard, s.In) //nolint:errcheck // drain stdin so Claude never sees a broken pipe
			return cwd, false
		}
	}
	return cwd, true
}
