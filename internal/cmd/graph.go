package cmd

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/hook-loop/hook-loop/gallery"
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
		ArgsUsage: "FILE | --profile NAME",
		Description: "Transitions are labelled with their event and [guards]; the initial state,\n" +
			"terminal states and the stop state are marked.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Value: dsl.GraphMermaid, Usage: "mermaid or dot"},
			&cli.StringFlag{Name: "profile", Usage: "graph the gallery loop `NAME` (" + strings.Join(gallery.Names(), ", ") + ") instead of a file"},
		},
		Action: func(c *cli.Context) error {
			o := &GraphOptions{IO: f.IOStreams, Profile: c.String("profile"), Format: c.String("format")}
			switch {
			case o.Profile != "" && c.NArg() != 0:
				return exitf(2, "usage: give a FILE or --profile NAME, not both")
			case o.Profile == "" && c.NArg() != 1:
				return exitf(2, "usage: graph takes exactly one FILE, or --profile NAME (see 'hook-loop graph --help')")
			}
			o.File = c.Args().First()
			return run(runF, runGraph, o)
		},
	}
}

func runGraph(o *GraphOptions) error {
	s := o.IO
	if !slices.Contains(dsl.GraphFormats, o.Format) {
		return exitf(2, "usage: --format must be %s (got %q)", strings.Join(dsl.GraphFormats, " or "), o.Format)
	}
	var spec *dsl.Spec
	var err error
	if o.Profile != "" {
		var data []byte
		if data, err = gallery.Get(o.Profile); err != nil {
			return exitf(2, "usage: --profile: %s", err)
		}
		spec, _, err = dsl.Parse("gallery/"+strings.TrimSuffix(o.Profile, ".json")+".json", data)
	} else {
		spec, _, err = dsl.Load(o.File)
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
