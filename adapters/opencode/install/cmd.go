package install

import (
	"context"
	"fmt"

	"github.com/hook-loop/hook-loop/cli/cmdutil"
	"github.com/urfave/cli/v2"
)

// NewCmd builds the `opencode` command: install and uninstall.
func NewCmd(f *cmdutil.Factory) *cli.Command {
	return cmdutil.NewHarnessCmd(f, "opencode", "install hook-loop's plugin into an opencode project, or remove it", installCmd, uninstallCmd)
}

// installCmd is `opencode install`.
var installCmd = cmdutil.InstallCmd[*cmdutil.Common]{
	Name:        "install",
	Usage:       "write .opencode/plugins/hook_loop.js and the loop file (kept when present)",
	UsageText:   "hook-loop opencode install [--profile NAME | --dsl FILE] [--destination DIR] [--hooks-config FILE] [--record] [--mode MODE] [--write]",
	DSLUsage:    cmdutil.CopiedDSLUsage,
	HooksConfig: true,
	Binary:      true,
	Run:         runInstall,
}

// uninstallCmd is `opencode uninstall`.
var uninstallCmd = cmdutil.InstallCmd[*cmdutil.Common]{
	Name:      "uninstall",
	Usage:     "remove hook-loop's opencode plugin (never another file)",
	UsageText: "hook-loop opencode uninstall [--destination DIR] [--write] [--purge]",
	Binary:    true,
	Purge:     true,
	Run:       runUninstall,
}

func planFor(o *cmdutil.Common) planOptions {
	return planOptions{Profile: o.Profile, DSLPath: o.DSL, Destination: o.ProjectDest(), Binary: o.Binary,
		HooksConfig: o.HooksConfig, Record: o.Record, Version: o.Version, Purge: o.Purge, Store: o.Store, State: o.State, Getenv: o.Getenv, Mode: o.Mode}
}

func runInstall(ctx context.Context, o *cmdutil.Common) error {
	s := o.IO
	o.NoteProfileIgnored(o.DSL, o.Profile)
	o.NoteDryRunWins()
	plan, err := planInstall(planFor(o))
	if err != nil {
		return err
	}
	if !o.Writes() {
		cmdutil.DryRunNote(s.Out, "opencode install")
	}
	fmt.Fprintf(s.Out, "hook binary: %s\n", plan.Binary)
	if err := plan.Carry(s.Out, o.Writes()); err != nil || !o.Writes() {
		return err
	}
	fmt.Fprintf(s.Out, "opencode loads the plugin when it next starts in %s\n", plan.Dest)
	return nil
}

func runUninstall(ctx context.Context, o *cmdutil.Common) error {
	s := o.IO
	o.NoteDryRunWins()
	plan, err := planUninstall(planFor(o))
	if err != nil {
		return err
	}
	if !o.Writes() {
		fmt.Fprintln(s.Out, "hook-loop opencode uninstall: dry run, nothing is changed (add --write to apply)")
	}
	return plan.Carry(s.Out, o.Writes())
}
