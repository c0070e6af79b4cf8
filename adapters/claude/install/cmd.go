package install

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/hook-loop/hook-loop/cli/cmdutil"
	"github.com/hook-loop/hook-loop/scaffold"
	"github.com/urfave/cli/v2"
)

// NewCmd builds the `claude` command: install and uninstall.
func NewCmd(f *cmdutil.Factory) *cli.Command { return Claude.NewCmd(f) }

// NewCmd builds the flavor's `<name>` command: install and uninstall.
func (fl *Flavor) NewCmd(f *cmdutil.Factory) *cli.Command {
	scopes := strings.Join(fl.Scopes(), "|")
	scopeUsage := fmt.Sprintf("settings file: project (%s/settings.json)", fl.Dir)
	if fl.Local {
		scopeUsage += fmt.Sprintf(", local (%s/settings.local.json)", fl.Dir)
	}
	scopeUsage += fmt.Sprintf(" or user (~/%s/settings.json)", fl.Dir)
	install := cmdutil.InstallCmd[*cmdutil.Common]{
		Name:       "install",
		Usage:      "merge hook-loop's hooks into a " + fl.Product + " settings file",
		UsageText:  "hook-loop " + fl.Name + " install [--scope " + scopes + "] [--dsl FILE | --profile NAME] [--destination DIR] [--record] [--mode MODE] [--write]",
		ScopeUsage: scopeUsage,
		DSLUsage:   "loop file the hooks use (default: hook-loop.json in the project)",
		Run:        fl.runInstall,
	}
	uninstall := cmdutil.InstallCmd[*cmdutil.Common]{
		Name:       "uninstall",
		Usage:      "remove hook-loop's hooks (and only those) from a " + fl.Product + " settings file",
		UsageText:  "hook-loop " + fl.Name + " uninstall [--scope " + scopes + "] [--destination DIR] [--write]",
		ScopeUsage: scopeUsage,
		Run:        fl.runUninstall,
	}
	return cmdutil.NewHarnessCmd(f, fl.Name, "install hook-loop into "+fl.Product+"'s settings, or remove it", install, uninstall)
}

// target resolves the project directory, home and settings path.
func (fl *Flavor) target(o *cmdutil.Common) (projectDir, settings string, err error) {
	if projectDir, err = cmdutil.ProjectDir(o.WorkDir, o.Destination); err != nil {
		return "", "", err
	}
	settings, err = fl.SettingsPath(o.Scope, projectDir, o.UserHome())
	return projectDir, settings, err
}

func (fl *Flavor) runInstall(ctx context.Context, o *cmdutil.Common) error {
	cmd := fl.Name + " install"
	projectDir, settingsPath, err := fl.target(o)
	if err != nil {
		return fmt.Errorf("%s: %w", cmd, err)
	}
	nonUser := "project"
	if fl.Local {
		nonUser = "project or local"
	}
	l, err := o.ResolveLoop(cmd, projectDir, nonUser)
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
	hooks := installHooks{Binary: l.Binary, Record: o.Record, Store: cmdutil.StoreArgOf(l.Store), Mode: o.Mode, Flavor: fl}
	if fl.Matcher != nil {
		hooks.Matcher = fl.Matcher(l.Spec)
	}
	switch {
	case !l.UserWide:
		hooks.Config = fl.pathArg(l.Config, projectDir, true)
		hooks.Log = fl.pathArg(l.Log, projectDir, true)
	case l.Config != "":
		hooks.Config = scaffold.ShellQuote(l.Config)
	}
	old, err := os.ReadFile(settingsPath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: read %s: %w", cmd, settingsPath, err)
	}
	merged, err := mergeSettings(old, hooks)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", cmd, settingsPath, err)
	}

	o.NoteDryRunWins()
	write := o.Writes() || !o.DryRun
	if err := o.WriteLoop(cmd, write, projectDir, l); err != nil {
		return err
	}
	state := "updated"
	if old == nil {
		state = "new file"
	}
	matcher := hooks.Matcher
	if matcher == "" {
		matcher = "every tool"
	}
	if err := o.WriteFile(cmd, write, settingsPath, old, merged, "hook-loop's hooks are already installed",
		state, fmt.Sprintf(": hooks for %d events, tool matcher %q", len(fl.hookCommands(merged)), matcher),
		func() error { return writeSettings(settingsPath, merged) }); err != nil {
		return err
	}
	fmt.Fprintf(o.IO.Out, "hook command: %s\n", hooks.Command("<Event>"))
	return nil
}

func (fl *Flavor) runUninstall(ctx context.Context, o *cmdutil.Common) error {
	s := o.IO
	cmd := fl.Name + " uninstall"
	_, settingsPath, err := fl.target(o)
	if err != nil {
		return fmt.Errorf("%s: %w", cmd, err)
	}
	old, err := os.ReadFile(settingsPath)
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(s.Out, "nothing to remove: %s does not exist\n", settingsPath)
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: read %s: %w", cmd, settingsPath, err)
	}
	out, n, err := fl.removeSettings(old)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", cmd, settingsPath, err)
	}
	if n == 0 {
		fmt.Fprintf(s.Out, "nothing to remove: no hook-loop hooks in %s\n", settingsPath)
		return nil
	}
	o.NoteDryRunWins()
	write := o.Writes() || !o.DryRun
	if !write {
		cmdutil.DryRunNote(s.Out, cmd)
	} else if err := writeSettings(settingsPath, out); err != nil {
		return fmt.Errorf("%s: %w", cmd, err)
	}
	scaffold.Render(s.Out, []scaffold.Change{{Path: settingsPath, Before: old, After: out,
		Note: fmt.Sprintf("remove %d hook-loop hook(s)", n)}}, nil, write)
	return nil
}
