package cli

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/urfave/cli/v2"
)

// ValidateOptions are validate's arguments.
type ValidateOptions struct {
	IO      *IOStreams
	File    string
	Profile string
	JSON    bool
}

// NewCmdValidate builds `validate`; runF replaces the run function in tests.
func NewCmdValidate(f *Factory, runF func(*ValidateOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "validate",
		Usage:     "check a loop DSL file and report every problem",
		ArgsUsage: "[FILE | --profile NAME] (default: the project's hook-loop.json)",
		Description: "Prints \"valid: <loop id>\" (exit 0) or \"invalid: <first problem>\" (exit 1),\n" +
			"then every error and warning on stderr, one line each with its fix. Warnings do\n" +
			"not change the exit status; --json prints every diagnostic as\n" +
			"{code, severity, path, message, hint}.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print {valid, loop_id, diagnostics} as JSON on stdout"},
			loopFlag(),
		},
		Action: func(c *cli.Context) error {
			o := &ValidateOptions{IO: f.IOStreams, JSON: c.Bool("json")}
			var err error
			if o.File, o.Profile, err = loopArgs(c, f); err != nil {
				return err
			}
			return run(runF, runValidate, o)
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
	spec, ds, err := loadLoop(o.File, o.Profile)
	var ee *ExitError
	if errors.As(err, &ee) {
		return err
	}
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
	}
	for _, d := range ds {
		fmt.Fprintf(s.ErrOut, "%s: %s\n", d.Severity, diagnosticLine(d))
	}
	if len(ds) > 0 {
		fmt.Fprintf(s.ErrOut, "(hook-loop validate --json prints these as {code, severity, path, message, hint})\n")
	}
	if err != nil {
		return exitf(1, "")
	}
	fmt.Fprintf(s.Out, "valid: %s\n", spec.Definition.ID)
	return nil
}

// diagnosticLine is "path: message (fix: hint)", on one line.
func diagnosticLine(d dsl.Diagnostic) string {
	line := oneLine(d.String())
	if d.Hint != "" {
		line += " (fix: " + oneLine(d.Hint) + ")"
	}
	return line
}
