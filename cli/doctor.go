package cli

import (
	"github.com/hook-loop/hook-loop/adapters/registry"
	"github.com/hook-loop/hook-loop/adapters/setup"
	"github.com/hook-loop/hook-loop/cli/cmdutil"
	"github.com/hook-loop/hook-loop/project"
	"github.com/urfave/cli/v2"
	"os"
)

// DoctorOptions are doctor's flags.
type DoctorOptions struct {
	IO        *IOStreams
	WorkDir   string
	Getenv    func(string) string // nil: os.Getenv
	Dir       string
	CodexHome string
	CodexBin  string
	Harnesses []string
	// Fix removes what earlier versions' hook servers left behind.
	Fix bool
}

// NewCmdDoctor builds `doctor`, which runs every harness's checks in hs.
func NewCmdDoctor(f *Factory, hs []setup.Harness, runF func(*DoctorOptions) error) *cli.Command {
	o := &DoctorOptions{}
	var names cli.StringSlice
	return &cli.Command{
		Name:      "doctor",
		Usage:     "check that the harnesses will really run hook-loop's hooks here, with a fix for each problem",
		UsageText: "hook-loop doctor [--destination DIR] [--harness NAME]... [--codex-home DIR] [--codex-bin PATH] [--fix]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "destination", Usage: "project directory (default: the project root above the current directory)", Destination: &o.Dir},
			&cli.StringSliceFlag{Name: "harness", Usage: "check only this harness (repeatable)", Destination: &names},
			&cli.StringFlag{Name: "codex-home", Usage: "Codex's home (default: $CODEX_HOME or ~/.codex)", Destination: &o.CodexHome},
			&cli.StringFlag{Name: "codex-bin", Usage: "codex executable for the trust check (default: codex on PATH)", Destination: &o.CodexBin},
			&cli.BoolFlag{Name: "fix", Usage: "remove the sockets and lock files earlier versions' hook servers left in the state directory, and stop any still running", Destination: &o.Fix},
		},
		Action: func(c *cli.Context) error {
			o.IO, o.WorkDir, o.Getenv, o.Harnesses = f.IOStreams, f.Cwd(), f.Getenv, names.Value()
			if runF != nil {
				return runF(o)
			}
			return runDoctor(c, hs, o)
		},
	}
}

func runDoctor(c *cli.Context, hs []setup.Harness, o *DoctorOptions) error {
	dir := project.Root(o.WorkDir)
	if o.Dir != "" {
		dir = o.Dir
	}
	abs, err := cmdutil.ProjectDir(o.WorkDir, dir)
	if err != nil {
		return err
	}
	env := &setup.DoctorEnv{Ctx: c.Context, Dir: abs, CodexHome: o.CodexHome, CodexBin: o.CodexBin}
	findings := append(registry.Doctor(hs, env, o.Harnesses...), sessionFindings(abs, o.Getenv)...)
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	findings = append(findings, leftoverFindings(project.UserStateDir(getenv), o.Fix)...)
	fails, warns := setup.PrintFindings(o.IO.Out, findings)
	if fails > 0 {
		return exitf(1, "doctor: %d problem(s), %d warning(s)", fails, warns)
	}
	return nil
}
