package install

import (
	"context"
	"fmt"

	"github.com/hook-loop/hook-loop/adapters/pi"
	"github.com/hook-loop/hook-loop/cli/cmdutil"
	"github.com/hook-loop/hook-loop/scaffold"
	"github.com/urfave/cli/v2"
)

// NewCmd builds the `pi` command: install and uninstall.
func NewCmd(f *cmdutil.Factory) *cli.Command {
	return cmdutil.NewHarnessCmd(f, "pi", "install hook-loop's extension into the pi coding agent, or remove it", installCmd, uninstallCmd)
}

// installCmd is `pi install`.
var installCmd = cmdutil.InstallCmd[*cmdutil.Common]{
	Name:        "install",
	Usage:       "write the hook-loop extension pi loads (.pi/extensions/hook_loop.ts)",
	UsageText:   "hook-loop pi install [--scope project|user] [--dsl FILE | --profile NAME] [--destination DIR] [--hooks-config FILE] [--record] [--mode MODE] [--write]",
	ScopeUsage:  scopeUsage,
	DSLUsage:    "loop file the extension uses (default: hook-loop.json in the project)",
	HooksConfig: true,
	Run:         runInstall,
}

// uninstallCmd is `pi uninstall`.
var uninstallCmd = cmdutil.InstallCmd[*cmdutil.Common]{
	Name:       "uninstall",
	Usage:      "remove the hook-loop extension (only a file hook-loop wrote)",
	UsageText:  "hook-loop pi uninstall [--scope project|user] [--destination DIR] [--write] [--purge]",
	ScopeUsage: scopeUsage,
	Purge:      true,
	Run:        runUninstall,
}

// scopeUsage is --scope's help.
const scopeUsage = "where the extension goes: project (.pi/extensions/) or user (~/.pi/agent/extensions/, every project)"

// piTarget resolves the project directory and the extension's path.
func piTarget(o *cmdutil.Common) (projectDir, extPath string, err error) {
	if projectDir, err = cmdutil.ProjectDir(o.WorkDir, o.Destination); err != nil {
		return "", "", err
	}
	agentDir := ""
	if o.Scope == scopeUser {
		if agentDir, err = pi.PiAgentDir(o.UserHome(), o.Getenv); err != nil {
			return "", "", err
		}
	}
	extPath, err = extensionPath(o.Scope, projectDir, agentDir)
	return projectDir, extPath, err
}

func runInstall(ctx context.Context, o *cmdutil.Common) error {
	s := o.IO
	projectDir, extPath, err := piTarget(o)
	if err != nil {
		return fmt.Errorf("pi install: %w", err)
	}
	l, err := o.ResolveLoop("pi install", projectDir)
	if err != nil {
		return err
	}
	hooksConfig, err := o.ProjectPath(o.HooksConfig)
	if err != nil {
		return err
	}
	x := PiExtension{Version: o.Version, HookLoop: l.Binary, HooksConfig: hooksConfig, Record: o.Record, Store: l.Store, Mode: o.Mode,
		Config: l.Config, EventLog: l.Log, State: l.State}
	if !l.UserWide {
		// The extension is written for this checkout (its paths are absolute):
		// it names the log it uses.
		x.EventLog, x.State = l.LogPath, ""
	}
	plan, err := planInstall(extPath, x, l.Spec)
	if err != nil {
		return fmt.Errorf("pi install: %w", err)
	}

	o.NoteDryRunWins()
	write := o.Writes()
	if err := o.WriteLoop("pi install", write, projectDir, l); err != nil {
		return err
	}
	state := "new file"
	if plan.Old != nil {
		state = "replaces an earlier hook-loop extension"
	}
	if err := o.WriteFile("pi install", write, extPath, plan.Old, plan.Content, "the hook-loop extension is already installed",
		state, "", plan.Write); err != nil {
		return err
	}
	fmt.Fprintf(s.Out, "hook command: %s pi-hook --event <event>", scaffold.ShellQuote(l.Binary))
	if x.Config != "" {
		fmt.Fprintf(s.Out, " --config %s", scaffold.ShellQuote(x.Config))
	}
	if x.EventLog != "" {
		fmt.Fprintf(s.Out, " --event-log %s", scaffold.ShellQuote(x.EventLog))
	}
	if x.State != "" {
		fmt.Fprintf(s.Out, " --state %s", x.State)
	}
	if x.Record {
		fmt.Fprint(s.Out, " --record")
	}
	if x.Store != "" {
		fmt.Fprintf(s.Out, " --store %s", scaffold.ShellQuote(x.Store))
	}
	if x.Mode != "" {
		fmt.Fprint(s.Out, " --mode "+x.Mode)
	}
	fmt.Fprintln(s.Out)
	if o.Scope == scopeUser {
		fmt.Fprintln(s.Out, "note: pi loads extensions from ~/.pi/agent/extensions/ in every project, without asking; this one acts only where it finds a hook-loop.json (or the --dsl loop).")
	} else {
		fmt.Fprintf(s.Out, "note: pi loads project extensions without a trust prompt: %s runs with your permissions the next time pi starts in %s (and so would any file someone adds to .pi/extensions/).\n", extPath, projectDir)
	}
	return nil
}

func runUninstall(ctx context.Context, o *cmdutil.Common) error {
	projectDir, extPath, err := piTarget(o)
	if err != nil {
		return fmt.Errorf("pi uninstall: %w", err)
	}
	var changes []scaffold.Change
	old, found, err := readExtension(extPath)
	switch {
	case err != nil:
		return fmt.Errorf("pi uninstall: %w", err)
	case !found:
		fmt.Fprintf(o.IO.Out, "nothing to remove: %s does not exist\n", extPath)
	default:
		changes = append(changes, scaffold.Change{Path: extPath, Before: old, Note: "hook-loop's pi extension"})
	}
	if len(changes) == 0 && !o.Purge {
		return nil
	}
	return o.Uninstall("pi uninstall", projectDir, o.Scope != scopeUser, changes)
}
