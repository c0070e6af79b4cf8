package cmd

import (
	"context"
	"os"

	"github.com/hook-loop/hook-loop/adapters/opencode"
	"github.com/hook-loop/hook-loop/internal/hookrun"
	"github.com/urfave/cli/v2"
)

func init() { register(newOpencodeHookCommand) }

// opencodeHookOptions are the flags of opencode-hook; they are the prototype's, so
// plugins it generated keep working.
type opencodeHookOptions struct {
	Event       string
	ConfigPath  string
	LogPath     string
	HooksConfig string
	Record      bool
}

func newOpencodeHookCommand(s *IOStreams) *cli.Command {
	var o opencodeHookOptions
	return &cli.Command{
		Name:      "opencode-hook",
		Usage:     "the command the opencode plugin runs for an event (reads the event JSON on stdin, answers one JSON line)",
		UsageText: "hook-loop opencode-hook --event EVENT --config FILE --event-log FILE [--hooks-config FILE] [--record]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "event", Usage: "opencode hook or event name, e.g. tool.execute.before (default: the payload's \"hook\")", Destination: &o.Event},
			&cli.StringFlag{Name: "config", Usage: "loop DSL file (default: hook-loop.json at the project root)", Destination: &o.ConfigPath},
			&cli.StringFlag{Name: "event-log", Usage: "event log (default: .hook-loop/events.jsonl at the project root)", Destination: &o.LogPath},
			&cli.StringFlag{Name: "hooks-config", Usage: "lifecycle hooks declaration (default: the user's config.json)", Destination: &o.HooksConfig},
			&cli.BoolFlag{Name: "record", Usage: "also record the raw hook input in .hook-loop/trace.jsonl", Destination: &o.Record},
		},
		Action: func(c *cli.Context) error { return runOpencodeHook(c.Context, s, o) },
	}
}

func runOpencodeHook(ctx context.Context, s *IOStreams, o opencodeHookOptions) error {
	cwd, _ := os.Getwd()
	out := hookrun.Run(ctx, hookrun.Options{
		Adapter:     opencode.New(),
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
		// The exit status is part of the answer (2 = refused); the JSON line says why.
		return &ExitError{Code: out.Exit}
	}
	return nil
}
