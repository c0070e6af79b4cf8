package cli

import (
	"context"

	"github.com/hook-loop/hook-loop/adapters/registry"
	"github.com/hook-loop/hook-loop/adapters/registry/hooks"
	"github.com/hook-loop/hook-loop/adapters/setup"
	"github.com/hook-loop/hook-loop/hook"
	"github.com/hook-loop/hook-loop/hook/full"
	"github.com/urfave/cli/v2"
)

// HookOptions are a *-hook command's flags (hook.Flags) and what it takes
// from its process.
type HookOptions struct {
	IO      *IOStreams
	Getenv  func(string) string
	WorkDir string
	Harness setup.Harness
	hook.Flags
	// OwnedPaths are every harness's files, which the agent may not write.
	OwnedPaths []string
}

// NewCmdHook builds `<name>-hook`, the command harness h runs for each event.
// hs are all the harnesses: the engine protects every one's files.
func NewCmdHook(f *Factory, h setup.Harness, hs []setup.Harness, runF func(*HookOptions) error) *cli.Command {
	o := &HookOptions{Harness: h}
	spec := h.Hook()
	return &cli.Command{
		Name:        h.Name() + "-hook",
		Usage:       spec.Usage,
		UsageText:   spec.UsageText,
		Description: spec.Description,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "event", Usage: spec.EventUsage, Destination: &o.Event},
		}, hookFlags(&o.Flags)...),
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
func (o *HookOptions) setEnv(f *Factory, hs []setup.Harness) {
	// A hook never fails on an unreadable working directory: the project is
	// then looked up from "." as the process would.
	o.IO, o.Getenv, o.WorkDir = f.IOStreams, f.Getenv, f.Cwd()
	o.OwnedPaths = hooks.OwnedPaths(registry.Hooks(hs), f.Home(), f.Getenv)
}

func runHook(ctx context.Context, o *HookOptions) error {
	r := hook.New(full.Deps(hook.Deps{Getenv: o.Getenv, OwnedPaths: o.OwnedPaths}))
	code := r.RunCommand(ctx, hook.Command{
		Harness: o.Harness, Flags: o.Flags,
		In: o.IO.In, Out: o.IO.Out, ErrOut: o.IO.ErrOut, WorkDir: o.WorkDir,
	})
	if code != 0 {
		// The exit status is part of the answer; the runner already wrote why.
		return &ExitError{Code: code}
	}
	return nil
}
