package install

import (
	"context"
	"fmt"

	"github.com/hook-loop/hook-loop/adapters/setup"
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
	l, err := setup.ResolveInstall(o, "claude install", projectDir)
	if err != nil {
		return err
	}
	hooks := installHooks{Binary: l.Binary, Matcher: toolMatcher(l.Spec), Record: o.Record, Store: cmdutil.StoreArgOf(l.Store), Mode: o.Mode, State: l.State}
	switch {
	case !l.UserWide:
		hooks.Config = pathArg(l.Config, projectDir, true)
		hooks.Log = pathArg(l.Log, projectDir, true)
	case l.Config != "":
		hooks.Config = scaffold.ShellQuote(l.Config)
	}
	return setup.InstallSettings(o, setup.SettingsInstall{Cmd: "claude install", ProjectDir: projectDir, Path: settingsPath, Loop: l,
		Merge:    func(old []byte) ([]byte, error) { return mergeSettings(old, hooks) },
		Commands: hookCommands, Matcher: hooks.Matcher, Example: hooks.Command("<Event>")})
}

func runUninstall(ctx context.Context, o *cmdutil.Common) error {
	projectDir, settingsPath, err := claudeTarget(o)
	if err != nil {
		return fmt.Errorf("claude uninstall: %w", err)
	}
	return setup.UninstallSettings(o, "claude uninstall", projectDir, settingsPath, removeSettings)
}
