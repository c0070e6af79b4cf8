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
	UsageText:   "hook-loop opencode install [--scope project] [--profile NAME | --dsl FILE] [--destination DIR] [--hooks-config FILE] [--record] [--mode MODE] [--write]",
	ScopeUsage:  scopeUsage,
	DSLUsage:    cmdutil.CopiedDSLUsage,
	HooksConfig: true,
	Binary:      true,
	Run:         runInstall,
}

// uninstallCmd is `opencode uninstall`.
var uninstallCmd = cmdutil.InstallCmd[*cmdutil.Common]{
	Name:       "uninstall",
	Usage:      "remove hook-loop's opencode plugin (never another file)",
	UsageText:  "hook-loop opencode uninstall [--scope project] [--destination DIR] [--write] [--purge]",
	ScopeUsage: scopeUsage,
	Binary:     true,
	Purge:      true,
	Run:        runUninstall,
}

// scopeUsage is --scope's help: every harness takes the flag, and opencode's
// plugin is the project's only (its per-user plugin folder was never measured
// with a real opencode, so nothing is written there).
const scopeUsage = "where the plugin goes: project (.opencode/plugins/; the only scope hook-loop installs for opencode)"

// checkScope refuses the scopes other harnesses take and opencode does not.
func checkScope(o *cmdutil.Common) error {
	if o.Scope != "" && o.Scope != "project" {
		return cmdutil.Exitf(2, "usage: --scope %q: hook-loop installs opencode's plugin per project only (expected project)", o.Scope)
	}
	return nil
}

func planFor(o *cmdutil.Common) planOptions {
	return planOptions{Profile: o.Profile, DSLPath: o.DSL, Destination: o.ProjectDest(), Binary: o.Binary,
		HooksConfig: o.HooksConfig, Record: o.Record, Version: o.Version, Purge: o.Purge, Store: o.Store, State: o.State, Getenv: o.Getenv, Mode: o.Mode}
}

func runInstall(ctx context.Context, o *cmdutil.Common) error {
	s := o.IO
	if err := checkScope(o); err != nil {
		return err
	}
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
	if err := checkScope(o); err != nil {
		return err
	}
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
