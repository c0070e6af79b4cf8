package cmd

import (
	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/adapters/opencode"
	"github.com/urfave/cli/v2"
)

func init() { register(newOpencodeHookCommand) }

func newOpencodeHookCommand(s *IOStreams) *cli.Command {
	return newHookCommand(s, hookSpec{
		name:       "opencode-hook",
		usage:      "the command the opencode plugin runs for an event (reads the event JSON on stdin, answers one JSON line)",
		usageText:  "hook-loop opencode-hook --event EVENT --config FILE --event-log FILE [--hooks-config FILE] [--record]",
		eventUsage: "opencode hook or event name, e.g. tool.execute.before (default: the payload's \"hook\")",
		adapter:    func() harness.Adapter { return opencode.New() },
	})
}
