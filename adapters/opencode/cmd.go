package opencode

import (
	"context"
	"fmt"

	"github.com/hook-loop/hook-loop/gallery"
	"github.com/hook-loop/hook-loop/internal/cmdutil"
	"github.com/hook-loop/hook-loop/scaffold"
	"github.com/urfave/cli/v2"
)

// InstallOptions are the flags of `opencode install` / `opencode
// uninstall` (the Python prototype's, plus --hooks-config and uninstall's --purge).
type InstallOptions struct {
	cmdutil.Common

	Profile     string
	DSL         string
	Destination string
	HooksConfig string
	Record      bool
	Purge       bool
	Binary      string // hidden: the binary the plugin runs ("" = this one)
}

// NewCmd builds the `opencode` command: install and uninstall.
func NewCmd(f *cmdutil.Factory) *cli.Command {
	return &cli.Command{
		Name:        "opencode",
		Usage:       "install hook-loop's plugin into an opencode project, or remove it",
		Subcommands: []*cli.Command{NewCmdInstall(f, nil), NewCmdUninstall(f, nil)},
	}
}

// NewCmdInstall builds `opencode install`; runF replaces the run function in tests.
func NewCmdInstall(f *cmdutil.Factory, runF func(*InstallOptions) error) *cli.Command {
	o := &InstallOptions{}
	return &cli.Command{
		Name:      "install",
		Usage:     "write .opencode/plugins/hook_loop.js and the loop file (kept when present)",
		UsageText: "hook-loop opencode install [--profile NAME | --dsl FILE] [--destination DIR] [--hooks-config FILE] [--record] [--write]",
		Flags: append(commonFlags(o),
			&cli.StringFlag{Name: "profile", Value: gallery.Default, Usage: "gallery loop written as hook-loop.json (" + scaffold.ProfileNames() + ")", Destination: &o.Profile},
			&cli.StringFlag{Name: "dsl", Usage: "copy this loop file instead of the profile", Destination: &o.DSL},
			&cli.StringFlag{Name: "hooks-config", Usage: "lifecycle hooks declaration the plugin passes to hook-loop (default: the user's)", Destination: &o.HooksConfig},
			cmdutil.RecordFlag(&o.Record),
		),
		Action: cmdutil.Action(f, &o.Common, o, runF, runInstall),
	}
}

// NewCmdUninstall builds `opencode uninstall`; runF replaces the run function in tests.
func NewCmdUninstall(f *cmdutil.Factory, runF func(*InstallOptions) error) *cli.Command {
	o := &InstallOptions{}
	return &cli.Command{
		Name:      "uninstall",
		Usage:     "remove hook-loop's opencode plugin (never another file)",
		UsageText: "hook-loop opencode uninstall [--destination DIR] [--write] [--purge]",
		Flags: append(commonFlags(o),
			&cli.BoolFlag{Name: "purge", Usage: "also remove hook-loop.json and .hook-loop/", Destination: &o.Purge},
		),
		Action: cmdutil.Action(f, &o.Common, o, runF, runUninstall),
	}
}

func commonFlags(o *InstallOptions) []cli.Flag {
	return append([]cli.Flag{
		&cli.StringFlag{Name: "destination", Value: ".", Usage: "project directory", Destination: &o.Destination},
		&cli.StringFlag{Name: "binary", Hidden: true, Destination: &o.Binary},
	}, cmdutil.DryRunWriteFlags(&o.DryRun, &o.Write)...)
}

func (o *InstallOptions) scaffold() planOptions {
	return planOptions{Profile: o.Profile, DSLPath: o.DSL, Destination: cmdutil.Resolve(o.WorkDir, o.Destination), Binary: o.Binary,
		HooksConfig: o.HooksConfig, Record: o.Record, Version: o.Version, Purge: o.Purge}
}

func runInstall(ctx context.Context, o *InstallOptions) error {
	s := o.IO
	if o.DSL != "" && o.Profile != gallery.Default && o.Profile != "" {
		return cmdutil.Exitf(2, "usage: give --dsl or --profile, not both")
	}
	plan, err := planInstall(o.scaffold())
	if err != nil {
		return err
	}
	if !o.Write {
		fmt.Fprintln(s.Out, "hook-loop opencode install: dry run, nothing is written (add --write to apply)")
	}
	fmt.Fprintf(s.Out, "hook binary: %s\n", plan.Binary)
	if !o.Write {
		plan.Render(s.Out, false)
		return nil
	}
	if err := plan.Apply(); err != nil {
		return err
	}
	plan.Render(s.Out, true)
	fmt.Fprintf(s.Out, "opencode loads the plugin when it next starts in %s\n", plan.Dest)
	return nil
}

func runUninstall(ctx context.Context, o *InstallOptions) error {
	s := o.IO
	plan, err := planUninstall(o.scaffold())
	if err != nil {
		return err
	}
	if !o.Write {
		fmt.Fprintln(s.Out, "hook-loop opencode uninstall: dry run, nothing is changed (add --write to apply)")
	}
	if !o.Write {
		plan.Render(s.Out, false)
		return nil
	}
	if err := plan.Apply(); err != nil {
		return err
	}
	plan.Render(s.Out, true)
	return nil
}
