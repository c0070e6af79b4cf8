package hook

import (
	"context"
	"io"

	"github.com/hook-loop/hook-loop/adapters/harness"
)

// Command is one *-hook command line: the harness it is for, its flags and
// its process's streams and working directory.
type Command struct {
	Harness harness.Hooks
	Flags
	In          io.Reader
	Out, ErrOut io.Writer
	WorkDir     string
}

// RunCommand runs the hook of c, writes its answer and returns the exit
// status, which is part of the answer.
func (r *Runner) RunCommand(ctx context.Context, c Command) int {
	cwd := c.WorkDir
	if project := c.Harness.Hook().Project; project != nil {
		dir, gated := project(c.In, r.getenv, c.ConfigPath, cwd)
		if !gated {
			return 0
		}
		cwd = dir
	}
	out := r.Run(ctx, Request{Adapter: c.Harness.NewAdapter(), Flags: c.Flags, Stdin: c.In, Cwd: cwd})
	// Nothing to say is no write at all.
	if len(out.Stdout) > 0 {
		c.Out.Write(out.Stdout)
	}
	if len(out.Stderr) > 0 {
		c.ErrOut.Write(out.Stderr)
	}
	return out.Exit
}
