package cmd

import (
	"context"
	"os"

	"github.com/hook-loop/hook-loop/internal/hookrun"
	"github.com/urfave/cli/v2"
)

// hookOptions are the flags every *-hook command takes. They are the prototype's
// (--event, --config, --event-log), so hook configurations it generated keep
// working.
type hookOptions struct {
	Event       string
	ConfigPath  string
	LogPath     string
	HooksConfig string
	Record      bool
}

// hookSpec is what differs between the harnesses' hook commands.
type hookSpec struct {
	name, usage, usageText, description string
	eventUsage                          string
	adapter                             func() hookrun.Adapter
	// project may replace the directory the project is looked up from, or report
	// that this invocation is not gated at all (the harness proceeds silently).
	project func(s *IOStreams, o *hookOptions, cwd string) (dir string, gated bool)
}

func newHookCommand(s *IOStreams, spec hookSpec) *cli.Command {
	var o hookOptions
	return &cli.Command{
		Name:        spec.name,
		Usage:       spec.usage,
		UsageText:   spec.usageText,
		Description: spec.description,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "event", Usage: spec.eventUsage, Destination: &o.Event},
			&cli.StringFlag{Name: "config", Usage: "loop DSL file (default: hook-loop.json at the project root)", Destination: &o.ConfigPath},
			&cli.StringFlag{Name: "event-log", Usage: "event log (default: .hook-loop/events.jsonl at the project root)", Destination: &o.LogPath},
			&cli.StringFlag{Name: "hooks-config", Usage: "lifecycle hooks declaration (default: the user's config.yaml or config.json)", Destination: &o.HooksConfig},
			&cli.BoolFlag{Name: "record", Usage: "also keep the raw hook input in .hook-loop/trace.jsonl, for hook-loop replay", Destination: &o.Record},
		},
		Action: func(c *cli.Context) error { return runHook(c.Context, s, spec, o) },
	}
}

func runHook(ctx context.Context, s *IOStreams, spec hookSpec, o hookOptions) error {
	cwd, _ := os.Getwd()
	if spec.project != nil {
		dir, gated := spec.project(s, &o, cwd)
		if !gated {
			return nil
		}
		cwd = dir
	}
	out := hookrun.Run(ctx, hookrun.Options{
		Adapter:     spec.adapter(),
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
		// The exit status is part of the answer; hookrun already wrote why.
		return &ExitError{Code: out.Exit}
	}
	return nil
}
