package cmd

import (
	"github.com/hook-loop/hook-loop/internal/demo"
	"github.com/urfave/cli/v2"
)

func init() { register(newDemoCommand) }

type demoOptions struct {
	Keep bool
}

func newDemoCommand(s *IOStreams) *cli.Command {
	var o demoOptions
	return &cli.Command{
		Name:      "demo",
		Usage:     "replay a recorded real Codex session through the plan_execute loop and show each decision",
		UsageText: "hook-loop demo [--keep]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "keep", Usage: "keep the temporary project (its hook-loop.json and event log)", Destination: &o.Keep},
		},
		Action: func(c *cli.Context) error {
			res, err := demo.Run(c.Context, s.Out, o.Keep)
			if err != nil {
				return err
			}
			if res.State != "done" {
				return exitf(1, "demo ended in state %q, not done", res.State)
			}
			return nil
		},
	}
}
