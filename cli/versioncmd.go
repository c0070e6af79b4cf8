package cli

import (
	"fmt"

	"github.com/hook-loop/hook-loop/version"
	"github.com/urfave/cli/v2"
)

// VersionOptions are version's (no) flags.
type VersionOptions struct {
	IO *IOStreams
}

// NewCmdVersion builds `version`: --version's line plus the commit and build
// date a release stamped, which a bug report needs.
func NewCmdVersion(f *Factory, runF func(*VersionOptions) error) *cli.Command {
	o := &VersionOptions{}
	return &cli.Command{
		Name:      "version",
		Usage:     "print hook-loop's version, commit and build date",
		UsageText: "hook-loop version",
		Action: func(*cli.Context) error {
			o.IO = f.IOStreams
			return run(runF, runVersion, o)
		},
	}
}

func runVersion(o *VersionOptions) error {
	_, err := fmt.Fprintln(o.IO.Out, version.Long())
	return err
}
