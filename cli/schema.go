package cli

import (
	"github.com/hook-loop/hook-loop/loop/schema"
	"github.com/urfave/cli/v2"
)

// NewCmdSchema builds `schema`, which has no options.
func NewCmdSchema(f *Factory, runF func(*IOStreams) error) *cli.Command {
	return &cli.Command{
		Name:  "schema",
		Usage: "print the JSON Schema (draft 2020-12) of the loop file",
		Description: "Save it beside your loop and point \"$schema\" at it so editors complete and check\n" +
			"the file: hook-loop schema > hook-loop.schema.json",
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return exitf(2, "usage: schema takes no arguments")
			}
			return run(runF, func(s *IOStreams) error {
				_, err := s.Out.Write(schema.JSON)
				return err
			}, f.IOStreams)
		},
	}
}
