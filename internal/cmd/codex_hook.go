package cmd

import (
	"context"
	"os"

	"github.com/hook-loop/hook-loop/adapters/codex"
	"github.com/hook-loop/hook-loop/internal/hookrun"
	"github.com/hook-loop/hook-loop/lifecycle"
	"github.com/urfave/cli/v2"
)

func init() { register(newCodexHookCommand) }

// codexHookOptions are the flags of codex-hook; they are the prototype's, so
// existing hooks.json files keep working.
type codexHookOptions struct {
	Event       string
	ConfigPath  string
	LogPath     string
	HooksConfig string
	Record      bool
}

func newCodexHookCommand(s *IOStreams) *cli.Command {
	var o codexHookOptions
	return &cli.Command{
		Name:      "codex-hook",
		Usage:     "the command Codex runs for a hook event (reads the event JSON on stdin)",
		UsageText: "hook-loop codex-hook --event EVENT [--config FILE] [--event-log FILE]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "event", Usage: "Codex hook event name (default: the payload's hook_event_name)", Destination: &o.Event},
			&cli.StringFlag{Name: "config", Usage: "loop DSL file (default: hook-loop.json at the project root)", Destination: &o.ConfigPath},
			&cli.StringFlag{Name: "event-log", Usage: "event log (default: .hook-loop/events.jsonl at the project root)", Destination: &o.LogPath},
			&cli.StringFlag{Name: "hooks-config", Usage: "lifecycle hooks declaration (default: the user's config.json)", Destination: &o.HooksConfig},
			&cli.BoolFlag{Name: "record", Usage: "also record the raw hook input in the log", Destination: &o.Record},
		},
		Action: func(c *cli.Context) error { return runCodexHook(c.Context, s, o) },
	}
}

func runCodexHook(ctx context.Context, s *IOStreams, o codexHookOptions) error {
	cwd, _ := os.Getwd()
	out := hookrun.Run(ctx, hookrun.Options{
		Adapter:     codex.New(),
		Event:       o.Event,
		ConfigPath:  o.ConfigPath,
		LogPath:     o.LogPath,
		HooksConfig: o.HooksConfig,
		Record:      o.Record,
		Stdin:       s.In,
		Cwd:         cwd,
		// The person's lifecycle hooks (their config, never the checkout's).
		LoadLifecycle: lifecycle.ForHook,
	})
	s.Out.Write(out.Stdout)
	s.ErrOut.Write(out.Stderr)
	if out.Exit != 0 {
		// The hook's exit status is its answer; hookrun already wrote why.
		return &ExitError{Code: out.Exit}
	}
	return nil
}
