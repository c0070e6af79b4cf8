package install

import (
	"context"
	"fmt"
	"strings"

	"github.com/hook-loop/hook-loop/cli/cmdutil"
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
		UsageText:  "hook-loop " + fl.Name + " uninstall [--scope " + scopes + "] [--destination DIR] [--write] [--purge]",
		ScopeUsage: scopeUsage,
		Purge:      true,
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
	l, err := o.ResolveMergeLoop(cmd, projectDir)
	if err != nil {
		return err
	}
	hooks := installHooks{Binary: l.Binary, Record: o.Record, Store: cmdutil.StoreArgOf(l.Store), Mode: o.Mode, State: l.State, Flavor: fl}
	if fl.Matcher != nil {
		hooks.Matcher = fl.Matcher(l.Spec)
	}
	hooks.Config, hooks.Log = l.HookPaths(func(p string) string { return fl.pathArg(p, projectDir, true) })
	matcher := hooks.Matcher
	if matcher == "" {
		matcher = "every tool"
	}
	if err := o.MergeInstall(cmd, projectDir, l, settingsPath,
		func(old []byte) ([]byte, error) { return mergeSettings(old, hooks) },
		func(merged []byte) string {
			return fmt.Sprintf(": hooks for %d events, tool matcher %q", len(fl.hookCommands(merged)), matcher)
		}); err != nil {
		return err
	}
	fmt.Fprintf(o.IO.Out, "hook command: %s\n", hooks.Command("<Event>"))
	return nil
}

func (fl *Flavor) runUninstall(ctx context.Context, o *cmdutil.Common) error {
	cmd := fl.Name + " uninstall"
	projectDir, settingsPath, err := fl.target(o)
	if err != nil {
		return fmt.Errorf("%s: %w", cmd, err)
	}
	return o.MergeUninstall(cmd, projectDir, settingsPath, fl.removeSettings)
}
