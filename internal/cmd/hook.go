package cmd

import (
	"context"

	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/adapters/registry"
	"github.com/hook-loop/hook-loop/internal/hookrun"
	"github.com/hook-loop/hook-loop/internal/hookrun/full"
	"github.com/urfave/cli/v2"
)

// HookOptions are the flags every *-hook command takes. They are those of the
// Python prototype hook-loop replaces (--event, --config, --event-log), so hook
// configurations it generated keep working.
type HookOptions struct {
	IO      *IOStreams
	Getenv  func(string) string
	WorkDir string
	Harness harness.Harness
	Event   string
	HookFlags
	// OwnedPaths are every harness's files, which the agent may not write.
	OwnedPaths []string
}

// NewCmdHook builds `<name>-hook`, the command harness h runs for each event.
// hs are all the harnesses: the engine protects every one's files.
func NewCmdHook(f *Factory, h harness.Harness, hs []harness.Harness, runF func(*HookOptions) error) *cli.Command {
	o := &HookOptions{Harness: h}
	spec := h.Hook()
	return &cli.Command{
		Name:        h.Name() + "-hook",
		Usage:       spec.Usage,
		UsageText:   spec.UsageText,
		Description: spec.Description,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "event", Usage: spec.EventUsage, Destination: &o.Event},
		}, o.HookFlags.flags()...),
		Action: func(c *cli.Context) error {
			o.setEnv(f, hs)
			if runF != nil {
				return runF(o)
			}
			return runHook(c.Context, o)
		},
	}
}

// setEnv fills in what a hook takes from its process rather than its flags.
func (o *HookOptions) setEnv(f *Factory, hs []harness.Harness) {
	// A hook never fails on an unreadable working directory: the project is
	// then looked up from "." as the process would.
	o.IO, o.Getenv, o.WorkDir = f.IOStreams, f.Getenv, f.Cwd()
	o.OwnedPaths = registry.OwnedPaths(hs, f.Home(), f.Getenv)
}

func runHook(ctx context.Context, o *HookOptions) error {
	s, cwd := o.IO, o.WorkDir
	if project := o.Harness.Hook().Project; project != nil {
		dir, gated := project(s.In, o.Getenv, o.ConfigPath, cwd)
		if !gated {
			return nil
		}
		cwd = dir
	}
	out := hookrun.Run(ctx, full.With(hookrun.Options{
		Adapter:     o.Harness.NewAdapter(),
		Event:       o.Event,
		ConfigPath:  o.ConfigPath,
		LogPath:     o.LogPath,
		HooksConfig: o.HooksConfig,
		Store:       o.Store,
		Getenv:      o.Getenv,
		Record:      o.Record,
		Mode:        hookrun.Mode(o.Getenv, o.Mode),
		Stdin:       s.In,
		Cwd:         cwd,
		OwnedPaths:  o.OwnedPaths,
	}))
	s.Out.Write(out.Stdout)
	s.ErrOut.Write(out.Stderr)
	if out.Exit != 0 {
		// The exit status is part of the answer; hookrun already wrote why.
		return &ExitError{Code: out.Exit}
	}
	return nil
}
