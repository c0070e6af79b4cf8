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
	UsageText:  "hook-loop gemini uninstall [--scope project|user] [--destination DIR] [--write]",
	ScopeUsage: scopeUsage,
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
	l, err := o.ResolveLoop("gemini install", projectDir, "project")
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
	hooks := installHooks{Binary: l.Binary, Matcher: toolMatcher(l.Spec), Record: o.Record, Store: cmdutil.StoreArgOf(l.Store), Mode: o.Mode}
	switch {
	case !l.UserWide:
		hooks.Config = pathArg(l.Config, projectDir)
		hooks.Log = pathArg(l.Log, projectDir)
	case l.Config != "":
		hooks.Config = scaffold.ShellQuote(l.Config)
	}
	old, err := os.ReadFile(settingsPath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("gemini install: read %s: %w", settingsPath, err)
	}
	merged, err := mergeSettings(old, hooks)
	if err != nil {
		return fmt.Errorf("gemini install: %s: %w", settingsPath, err)
	}

	o.NoteDryRunWins()
	write := o.Writes() || !o.DryRun
	if err := o.WriteLoop("gemini install", write, projectDir, l); err != nil {
		return err
	}
	state := "updated"
	if old == nil {
		state = "new file"
	}
	if err := o.WriteFile("gemini install", write, settingsPath, old, merged, "hook-loop's hooks are already installed",
		state, fmt.Sprintf(": hooks for %d events, tool matcher %q", len(hookCommands(merged)), hooks.Matcher),
		func() error { return writeSettings(settingsPath, merged) }); err != nil {
		return err
	}
	fmt.Fprintf(o.IO.Out, "hook command: %s\n", hooks.Command("<Event>"))
	if !l.UserWide {
		fmt.Fprintln(o.IO.Out, "note: Gemini CLI runs a project's hooks only in a trusted folder: trust it when Gemini CLI asks (or /permissions), or run with GEMINI_CLI_TRUST_WORKSPACE=true; hook-loop doctor checks it")
	}
	return nil
}

func runUninstall(ctx context.Context, o *cmdutil.Common) error {
	s := o.IO
	_, settingsPath, err := target(o)
	if err != nil {
		return fmt.Errorf("gemini uninstall: %w", err)
	}
	old, err := os.ReadFile(settingsPath)
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(s.Out, "nothing to remove: %s does not exist\n", settingsPath)
		return nil
	}
	if err != nil {
		return fmt.Errorf("gemini uninstall: read %s: %w", settingsPath, err)
	}
	out, n, err := removeSettings(old)
	if err != nil {
		return fmt.Errorf("gemini uninstall: %s: %w", settingsPath, err)
	}
	if n == 0 {
		fmt.Fprintf(s.Out, "nothing to remove: no hook-loop hooks in %s\n", settingsPath)
		return nil
	}
	o.NoteDryRunWins()
	write := o.Writes() || !o.DryRun
	if !write {
		cmdutil.DryRunNote(s.Out, "gemini uninstall")
	} else if err := writeSettings(settingsPath, out); err != nil {
		return fmt.Errorf("gemini uninstall: %w", err)
	}
	scaffold.Render(s.Out, []scaffold.Change{{Path: settingsPath, Before: old, After: out,
		Note: fmt.Sprintf("remove %d hook-loop hook(s)", n)}}, nil, write)
	return nil
}
