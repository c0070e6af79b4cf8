package cmd

import (
	"context"
	"os"

	"github.com/hook-loop/hook-loop/adapters/pi"
	"github.com/hook-loop/hook-loop/internal/hookrun"
	"github.com/urfave/cli/v2"
)

func init() { register(newPiHookCommand) }

// piHookOptions are the flags the generated pi extension passes.
type piHookOptions struct {
	Event       string
	ConfigPath  string
	LogPath     string
	HooksConfig string
	Record      bool
}

func newPiHookCommand(s *IOStreams) *cli.Command {
	var o piHookOptions
	return &cli.Command{
		Name:  "pi-hook",
		Usage: "the command the hook-loop pi extension runs for a pi event (reads the event JSON on stdin)",
		Description: "Prints one JSON answer for the extension: " +
			`{"action":"allow|block|steer","reason":...,"context":...,"stopBlocks":N,"maxStopBlocks":M}; ` +
			"exit 0 lets pi proceed, exit 2 refuses.",
		UsageText: "hook-loop pi-hook --event EVENT [--config FILE] [--event-log FILE] [--hooks-config FILE] [--record]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "event", Usage: "pi event name: session_start, input, tool_call, tool_result, message_end, session_shutdown (default: the payload's event)", Destination: &o.Event},
			&cli.StringFlag{Name: "config", Usage: "loop DSL file (default: hook-loop.json at the project root)", Destination: &o.ConfigPath},
			&cli.StringFlag{Name: "event-log", Usage: "event log (default: .hook-loop/events.jsonl at the project root)", Destination: &o.LogPath},
			&cli.StringFlag{Name: "hooks-config", Usage: "lifecycle hooks declaration (default: the user's config.json)", Destination: &o.HooksConfig},
			&cli.BoolFlag{Name: "record", Usage: "also record the raw hook input in .hook-loop/trace.jsonl", Destination: &o.Record},
		},
		Action: func(c *cli.Context) error { return runPiHook(c.Context, s, o) },
	}
}

func runPiHook(ctx context.Context, s *IOStreams, o piHookOptions) error {
	cwd, _ := os.Getwd()
	out := hookrun.Run(ctx, hookrun.Options{
		Adapter:     pi.New(),
		Event:       o.Event,
		ConfigPath:  o.ConfigPath,
		LogPath:     o.LogPath,
		HooksConfig: o.HooksConfig,
		Record:      o.Record,
		Stdin:       s.In,
		Cwd:         cwd,
	})
	s.Out.Write(out.Stdout)
	s.ErrOut.Write(out.Stderr)
	if out.Exit != 0 {
		// The exit status is part of the answer; the extension reads stdout.
		return &ExitError{Code: out.Exit}
	}
	return nil
}
