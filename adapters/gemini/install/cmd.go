package install

import (
	"context"
	"fmt"

	"github.com/hook-loop/hook-loop/cli/cmdutil"
	"github.com/hook-loop/hook-loop/scaffold/settingshooks"
	"github.com/urfave/cli/v2"
)

// NewCmd builds the `gemini` command: install and uninstall.
func NewCmd(f *cmdutil.Factory) *cli.Command {
	return cmdutil.NewHarnessCmd(f, "gemini", "install hook-loop into Gemini CLI's settings, or remove it", installCmd, uninstallCmd)
}

// installCmd is `gemini install`.
var installCmd = cmdutil.InstallCmd[*cmdutil.Common]{
	Name:       "install",
	Usage:      "merge hook-loop's hooks into a Gemini CLI settings file",
	UsageText:  "hook-loop gemini install [--scope project|user] [--dsl FILE | --profile NAME] [--destination DIR] [--record] [--mode MODE] [--write]",
	ScopeUsage: scopeUsage,
	DSLUsage:   "loop file the hooks use (default: hook-loop.json in the project)",
	Run:        runInstall,
}

// uninstallCmd is `gemini uninstall`.
var uninstallCmd = cmdutil.InstallCmd[*cmdutil.Common]{
	Name:       "uninstall",
	Usage:      "remove hook-loop's hooks (and only those) from a Gemini CLI settings file",
	UsageText:  "hook-loop gemini uninstall [--scope project|user] [--destination DIR] [--write] [--purge]",
	ScopeUsage: scopeUsage,
	Purge:      true,
	Run:        runUninstall,
}

// scopeUsage is --scope's help.
const scopeUsage = "settings file: project (.gemini/settings.json) or user (~/.gemini/settings.json, or under $GEMINI_CLI_HOME)"

// target resolves the project directory and settings path.
func target(o *cmdutil.Common) (projectDir, settings string, err error) {
	if projectDir, err = cmdutil.ProjectDir(o.WorkDir, o.Destination); err != nil {
		return "", "", err
	}
	settings, err = SettingsPath(o.Scope, projectDir, o.UserHome(), o.Getenv)
	return projectDir, settings, err
}

func runInstall(ctx context.Context, o *cmdutil.Common) error {
	projectDir, settingsPath, err := target(o)
	if err != nil {
		return fmt.Errorf("gemini install: %w", err)
	}
	l, err := o.ResolveMergeLoop("gemini install", projectDir)
	if err != nil {
		return err
	}
	hooks := installHooks{Hook: settingshooks.Hook{Binary: l.Binary, Subcommand: "gemini-hook", Record: o.Record,
		Store: cmdutil.StoreArgOf(l.Store), Mode: o.Mode, State: l.State}, Matcher: toolMatcher(l.Spec)}
	hooks.Config, hooks.Log = l.HookPaths(func(p string) string { return pathArg(p, projectDir) })
	if err := o.MergeInstall("gemini install", projectDir, l, settingsPath,
		func(old []byte) ([]byte, error) { return mergeSettings(old, hooks) },
		func(merged []byte) string {
			return fmt.Sprintf(": hooks for %d events, tool matcher %q", len(hookCommands(merged)), hooks.Matcher)
		}); err != nil {
		return err
	}
	fmt.Fprintf(o.IO.Out, "hook command: %s\n", hooks.Command("<Event>"))
	if !l.UserWide {
		fmt.Fprintln(o.IO.Out, "note: Gemini CLI runs a project's hooks only in a trusted folder: trust it when Gemini CLI asks (or /permissions), or run with GEMINI_CLI_TRUST_WORKSPACE=true; hook-loop doctor checks it")
	}
	return nil
}

func runUninstall(ctx context.Context, o *cmdutil.Common) error {
	projectDir, settingsPath, err := target(o)
	if err != nil {
		return fmt.Errorf("gemini uninstall: %w", err)
	}
	return o.MergeUninstall("gemini uninstall", projectDir, settingsPath, removeSettings)
}
