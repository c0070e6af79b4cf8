package cmd

import (
	"encoding/json"
	"fmt"

	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/urfave/cli/v2"
)

// ValidateOptions are validate's arguments.
type ValidateOptions struct {
	IO   *IOStreams
	File string
	JSON bool
}

// NewCmdValidate builds `validate`; runF replaces the run function in tests.
func NewCmdValidate(f *Factory, runF func(*ValidateOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "validate",
		Usage:     "check a loop DSL file and report every problem",
		ArgsUsage: "FILE",
		Description: "Prints \"valid: <loop id>\" (exit 0) or \"invalid: <first problem>\" (exit 1).\n" +
			"Warnings go to stderr and do not change the exit status; --json prints every\n" +
			"diagnostic as {code, severity, path, message, hint}.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print {valid, loop_id, diagnostics} as JSON on stdout"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return exitf(2, "usage: validate takes exactly one FILE (see 'hook-loop validate --help')")
			}
			return run(runF, runValidate, &ValidateOptions{IO: f.IOStreams, File: c.Args().First(), JSON: c.Bool("json")})
		},
	}
}

// validateReport is validate --json's output.
type validateReport struct {
	Valid       bool            `json:"valid"`
	LoopID      *string         `json:"loop_id"`
	Diagnostics dsl.Diagnostics `json:"diagnostics"`
}

func runValidate(o *ValidateOptions) error {
	s := o.IO
	spec, ds, err := dsl.Load(o.File)
	if o.JSON {
		rep := validateReport{Valid: err == nil, Diagnostics: ds}
		if spec != nil {
			rep.LoopID = &spec.Definition.ID
		}
		enc := json.NewEncoder(s.Out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if werr := enc.Encode(rep); werr != nil {
			return werr
		}
		if err != nil {
			return exitf(1, "")
		}
		return nil
	}
	if err != nil {
		fmt.Fprintf(s.ErrOut, "invalid: %s\n", oneLine(err.Error()))
		return exitf(1, "")
	}
	printWarnings(s, ds)
	fmt.Fprintf(s.Out, "valid: %s\n", spec.Definition.ID)
	return nil
}

// printWarnings writes one "warning: <path>: <message>" line per warning.
func printWarnings(s *IOStreams, ds dsl.Diagnostics) {
	for _, d := range ds.Warnings() {
		fmt.Fprintf(s.ErrOut, "warning: %s\n", oneLine(d.String()))
	}
}
