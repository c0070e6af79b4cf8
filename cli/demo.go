package cli

import (
	"context"
	"fmt"
	"os/exec"

	"github.com/hook-loop/hook-loop/cli/demo"
	"github.com/urfave/cli/v2"
)

// DemoOptions are demo's flags.
type DemoOptions struct {
	IO   *IOStreams
	Keep bool
	// LookPath finds hook-loop on PATH for the closing hint (nil: exec.LookPath).
	LookPath func(string) (string, error)
}

// NewCmdDemo builds `demo`; runF replaces the run function in tests.
func NewCmdDemo(f *Factory, runF func(*DemoOptions) error) *cli.Command {
	o := &DemoOptions{}
	return &cli.Command{
		Name:      "demo",
		Usage:     "replay a recorded real Codex session through the plan_execute loop and show each decision",
		UsageText: "hook-loop demo [--keep]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "keep", Usage: "keep the temporary project (its hook-loop.json and event log)", Destination: &o.Keep},
		},
		Action: func(c *cli.Context) error {
			o.IO = f.IOStreams
			return run(runF, func(o *DemoOptions) error { return runDemo(c.Context, o) }, o)
		},
	}
}

func runDemo(ctx context.Context, o *DemoOptions) error {
	res, err := demo.Run(ctx, o.IO.Out, o.Keep)
	if err != nil {
		return err
	}
	lookPath := o.LookPath
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	_, notOnPath := lookPath("hook-loop")
	dir := ""
	if o.Keep {
		dir = res.Dir
	}
	fmt.Fprint(o.IO.Out, demo.Hint(dir, notOnPath == nil))
	if res.State != "done" {
		return exitf(1, "demo ended in state %q, not done", res.State)
	}
	return nil
}
