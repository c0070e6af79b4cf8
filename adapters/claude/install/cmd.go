package install

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/hook-loop/hook-loop/cli/cmdutil"
	"github.com/hook-loop/hook-loop/scaffold"
	"github.com/urfave/cli/v2"
)

// NewCmd builds the `claude` command: install and uninstall.
func NewCmd(f *cmdutil.Factory) *cli.Command {
	return cmdutil.NewHarnessCmd(f, "claude", "install hook-loop into Claude Code's settings, or remove it", installCmd, uninstallCmd)
}

// installCmd is `claude install`.
var installCmd = cmdutil.InstallCmd[*cmdutil.Common]{
	Name:       "install",
	Usage:      "merge hook-loop's hooks into a Claude Code settings file",
	UsageText:  "hook-loop claude install [--scope project|local|user] [--dsl FILE | --profile NAME] [--destination DIR] [--record] [--mode MODE] [--write]",
	ScopeUsage: scopeUsage,
	DSLUsage:   "loop file the hooks use (default: hook-loop.json in the project)",
	Run:        runInstall,
}

// uninstallCmd is `claude uninstall`.
var uninstallCmd = cmdutil.InstallCmd[*cmdutil.Common]{
	Name:       "uninstall",
	Usage:      "remove hook-loop's hooks (and only those) from a Claude Code settings file",
	UsageText:  "hook-loop claude uninstall [--scope project|local|user] [--destination DIR] [--write] [--purge]",
	ScopeUsage: scopeUsage,
	Purge:      true,
	Run:        runUninstall,
}

// scopeUsage is --scope's help.
const scopeUsage = "settings file: project (.claude/settings.json), local (.claude/settings.local.json) or user (~/.claude/settings.json)"

// claudeTarget resolves the project directory, home and settings path.
func claudeTarget(o *cmdutil.Common) (projectDir, settings string, err error) {
	if projectDir, err = cmdutil.ProjectDir(o.WorkDir, o.Destination); err != nil {
		return "", "", err
	}
	settings, err = ClaudeSettingsPath(o.Scope, projectDir, o.UserHome())
	return projectDir, settings, err
}

func runInstall(ctx context.Context, o *cmdutil.Common) error {
	projectDir, settingsPath, err := claudeTarget(o)
	if err != nil {
		return fmt.Errorf("claude install: %w", err)
	}
	l, err := o.ResolveLoop("claude install", projectDir)
	if err != nil {
		return err
	}
	if o.Binary == "" {
		// An explicit --binary is written as given.
		var why string
		if l.Binary, _, why = scaffold.HookBinary(l.Binary, l.Store, o.Getenv); why != "" {
			fmt.Fprintln(o.IO.Out, why)
		}
	}
	hooks := installHooks{Binary: l.Binary, Matcher: toolMatcher(l.Spec), Record: o.Record, Store: cmdutil.StoreArgOf(l.Store), Mode: o.Mode, State: l.State}
	switch {
	case !l.UserWide:
		hooks.Config = pathArg(l.Config, projectDir, true)
		hooks.Log = pathArg(l.Log, projectDir, true)
	case l.Config != "":
		hooks.Config = scaffold.ShellQuote(l.Config)
	}
	old, err := os.ReadFile(settingsPath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("claude install: read %s: %w", settingsPath, err)
	}
	merged, err := mergeSettings(old, hooks)
	if err != nil {
		return fmt.Errorf("claude install: %s: %w", settingsPath, err)
	}

	o.NoteDryRunWins()
	write := o.Writes() || !o.DryRun
	if err := o.WriteLoop("claude install", write, projectDir, l); err != nil {
		return err
	}
	state := "updated"
	if old == nil {
		state = "new file"
	}
	if err := o.WriteFile("claude install", write, settingsPath, old, merged, "hook-loop's hooks are already installed",
		state, fmt.Sprintf(": hooks for %d events, tool matcher %q", len(hookCommands(merged)), hooks.Matcher),
		func() error { return writeSettings(settingsPath, merged) }); err != nil {
		return err
	}
	fmt.Fprintf(o.IO.Out, "hook command: %s\n", hooks.Command("<Event>"))
	return nil
}

func runUninstall(ctx context.Context, o *cmdutil.Common) error {
	s := o.IO
	projectDir, settingsPath, err := claudeTarget(o)
	if err != nil {
		return fmt.Errorf("claude uninstall: %w", err)
	}
	var changes []scaffold.Change
	old, err := os.ReadFile(settingsPath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		fmt.Fprintf(s.Out, "nothing to remove: %s does not exist\n", settingsPath)
	case err != nil:
		return fmt.Errorf("claude uninstall: read %s: %w", settingsPath, err)
	default:
		out, n, err := removeSettings(old)
		if err != nil {
			return fmt.Errorf("claude uninstall: %s: %w", settingsPath, err)
		}
		if n == 0 {
			fmt.Fprintf(s.Out, "nothing to remove: no hook-loop hooks in %s\n", settingsPath)
		} else {
			changes = append(changes, scaffold.Change{Path: settingsPath, Before: old, After: out,
				Note: fmt.Sprintf("remove %d hook-loop hook(s)", n)})
		}
	}
	if len(changes) == 0 && !o.Purge {
		return nil
	}
	return o.Uninstall("claude uninstall", projectDir, o.Scope != "user", changes)
}
