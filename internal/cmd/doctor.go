package cmd

import (
	"os"
	"path/filepath"

	"github.com/hook-loop/hook-loop/internal/project"
	"github.com/hook-loop/hook-loop/scaffold"
	"github.com/urfave/cli/v2"
)

func init() { register(newDoctorCommand) }

type doctorOptions struct {
	Dir       string
	CodexHome string
	CodexBin  string
	Harnesses cli.StringSlice
}

func newDoctorCommand(s *IOStreams) *cli.Command {
	var o doctorOptions
	return &cli.Command{
		Name:      "doctor",
		Usage:     "check that the harnesses will really run hook-loop's hooks here, with a fix for each problem",
		UsageText: "hook-loop doctor [--destination DIR] [--harness NAME]... [--codex-home DIR] [--codex-bin PATH]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "destination", Usage: "project directory (default: the project root above the current directory)", Destination: &o.Dir},
			&cli.StringSliceFlag{Name: "harness", Usage: "check only this harness (repeatable)", Destination: &o.Harnesses},
			&cli.StringFlag{Name: "codex-home", Usage: "Codex's home (default: $CODEX_HOME or ~/.codex)", Destination: &o.CodexHome},
			&cli.StringFlag{Name: "codex-bin", Usage: "codex executable for the trust check (default: codex on PATH)", Destination: &o.CodexBin},
		},
		Action: func(c *cli.Context) error {
			dir := o.Dir
			if dir == "" {
				cwd, _ := os.Getwd()
				dir = project.Root(cwd)
			}
			abs, err := filepath.Abs(dir)
			if err != nil {
				return err
			}
			env := &scaffold.DoctorEnv{Ctx: c.Context, Dir: abs, CodexHome: o.CodexHome, CodexBin: o.CodexBin}
			fails, warns := scaffold.PrintFindings(s.Out, scaffold.RunDoctor(env, o.Harnesses.Value()...))
			if fails > 0 {
				return exitf(1, "doctor: %d problem(s), %d warning(s)", fails, warns)
			}
			return nil
		},
	}
}
