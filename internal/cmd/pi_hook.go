package cmd

import (
	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/adapters/pi"
	"github.com/urfave/cli/v2"
)

func init() { register(newPiHookCommand) }

func newPiHookCommand(s *IOStreams) *cli.Command {
	return newHookCommand(s, hookSpec{
		name:  "pi-hook",
		usage: "the command the hook-loop pi extension runs for a pi event (reads the event JSON on stdin)",
		description: "Prints one JSON answer for the extension: " +
			`{"action":"allow|block|steer","reason":...,"context":...,"stopBlocks":N,"maxStopBlocks":M}; ` +
			"exit 0 lets pi proceed, exit 2 refuses.",
		usageText:  "hook-loop pi-hook --event EVENT [--config FILE] [--event-log FILE] [--hooks-config FILE] [--record]",
		eventUsage: "pi event name: session_start, input, tool_call, tool_result, message_end, session_shutdown (default: the payload's event)",
		adapter:    func() harness.Adapter { return pi.New() },
	})
}
