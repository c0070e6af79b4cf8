package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/hook-loop/hook-loop/loop/dsl"
)

// GraphOptions are graph's arguments.
type GraphOptions struct {
	IO      *IOStreams
	File    string
	Profile string // an embedded gallery loop, instead of File
	Format  string
}

// NewCmdGraph builds `graph`; runF replaces the run function in tests.
func NewCmdGraph(f *Factory, runF func(*GraphOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "graph",
		Usage:     "draw a loop's state machine (Mermaid or Graphviz dot)",
		ArgsUsage: "[FILE | --profile NAME] (default: the project's hook-loop.json)",
		Description: "Transitions are labelled with their event and [guards]; the initial state,\n" +
			"terminal states and the stop state are marked.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: dsl.GraphMermaid, Usage: "mermaid or dot"},
			loopFlag(),
		},
		Action: func(c *cli.Context) error {
			o := &GraphOptions{IO: f.IOStreams, Format: c.String("format")}
			var err error
			if o.File, o.Profile, err = loopArgs(c, f); err != nil {
				return err
			}
			return run(runF, runGraph, o)
		},
	}
}

func runGraph(o *GraphOptions) error {
	s := o.IO
	if !slices.Contains(dsl.GraphFormats, o.Format) {
		return exitf(2, "usage: --format must be %s (got %q)", strings.Join(dsl.GraphFormats, " or "), o.Format)
	}
	spec, _, err := loadLoop(o.File, o.Profile)
	var ee *ExitError
	if errors.As(err, &ee) {
		return err
	}
	if err != nil {
		return exitf(1, "%s", err)
	}
	out, err := dsl.Graph(spec.Definition, o.Format)
	if err != nil {
		return err
	}
	_, err = fmt.Fprint(s.Out, out)
	return err
}
