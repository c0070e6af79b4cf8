package cmd

import (
	"github.com/hook-loop/hook-loop/adapters/codex"
	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/urfave/cli/v2"
)

func init() { register(newCodexHookCommand) }

func newCodexHookCommand(s *IOStreams) *cli.Command {
	return newHookCommand(s, hookSpec{
		name:       "codex-hook",
		usage:      "the command Codex runs for a hook event (reads the event JSON on stdin)",
		usageText:  "hook-loop codex-hook --event EVENT [--config FILE] [--event-log FILE] [--hooks-config FILE] [--record]",
		eventUsage: "Codex hook event name (default: the payload's hook_event_name)",
		adapter:    func() harness.Adapter { return codex.New() },
	})
}
