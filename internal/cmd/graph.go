package cmd

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/hook-loop/hook-loop/loop"
)

func init() { register(newGraphCommand) }

type graphOptions struct {
	File   string
	Format string
}

func newGraphCommand(s *IOStreams) *cli.Command {
	return &cli.Command{
		Name:      "graph",
		Usage:     "draw a loop's state machine (Mermaid or Graphviz dot)",
		ArgsUsage: "FILE",
		Description: "Transitions are labelled with their event and [guards]; the initial state,\n" +
			"terminal states and the stop state are marked.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: loop.GraphMermaid, Usage: "mermaid or dot"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return exitf(2, "usage: graph takes exactly one FILE (see 'hook-loop graph --help')")
			}
			return runGraph(s, graphOptions{File: c.Args().First(), Format: c.String("format")})
		},
	}
}

func runGraph(s *IOStreams, o graphOptions) error {
	if !slices.Contains(loop.GraphFormats, o.Format) {
		return exitf(2, "usage: --format must be %s (got %q)", strings.Join(loop.GraphFormats, " or "), o.Format)
	}
	spec, _, err := loop.Load(o.File)
	if err != nil {
		return exitf(1, "%s", err)
	}
	out, err := loop.Graph(spec.Definition, o.Format)
	if err != nil {
		return err
	}
	_, err = fmt.Fprint(s.Out, out)
	return err
}
