package claude

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/hook-loop/hook-loop/internal/cmdutil"
	"github.com/hook-loop/hook-loop/internal/project"
	"github.com/hook-loop/hook-loop/scaffold"
)

// InstallOptions are the flags of `claude install` and `claude uninstall`.
type InstallOptions struct {
	cmdutil.Common

	Scope string
	Home  string
}

// NewCmd builds the `claude` command: install and uninstall.
func NewCmd(f *cmdutil.Factory) *cli.Command {
	return cmdutil.NewHarnessCmd(f, "claude", "install hook-loop into Claude Code's settings, or remove it", installCmd, uninstallCmd)
}

// installCmd is `claude install`.
var installCmd = cmdutil.InstallCmd[*InstallOptions]{
	Name:      "install",
	Usage:     "merge hook-loop's hooks into a Claude Code settings file",
	UsageText: "hook-loop claude install [--scope project|local|user] [--dsl FILE | --profile NAME] [--destination DIR] [--record] [--mode MODE] [--write]",
	Where:     scopeFlag,
	DSLUsage:  "loop file the hooks use (default: hook-loop.json in the project)",
	Run:       runInstall,
}

// uninstallCmd is `claude uninstall`.
var uninstallCmd = cmdutil.InstallCmd[*InstallOptions]{
	Name:      "uninstall",
	Usage:     "remove hook-loop's hooks (and only those) from a Claude Code settings file",
	UsageText: "hook-loop claude uninstall [--scope project|local|user] [--destination DIR] [--write]",
	Where:     scopeFlag,
	Run:       runUninstall,
}

func scopeFlag(o *InstallOptions) []cli.Flag {
	return []cli.Flag{&cli.StringFlag{Name: "scope", Value: scopeProject, Usage: "settings file: project (.claude/settings.json), local (.claude/settings.local.json) or user (~/.claude/settings.json)", Destination: &o.Scope}}
}

// claudeTarget resolves the project directory, home and settings path.
func claudeTarget(o *InstallOptions) (projectDir, settings string, err error) {
	if projectDir, err = cmdutil.ProjectDir(o.WorkDir, o.Destination); err != nil {
		return "", "", err
	}
	home := o.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	settings, err = ClaudeSettingsPath(o.Scope, projectDir, home)
	return projectDir, settings, err
}

func runInstall(ctx context.Context, o *InstallOptions) error {
	s := o.IO
	if o.DSL != "" && o.Profile != "" {
		return cmdutil.Exitf(2, "claude install: --dsl and --profile both given: pick one")
	}
	projectDir, settingsPath, err := claudeTarget(o)
	if err != nil {
		return fmt.Errorf("claude install: %w", err)
	}
	binary, err := scaffold.HookLoopBinary(o.Binary)
	if err != nil {
		return fmt.Errorf("claude install: %w", err)
	}
	loopPath, loopData, spec, loopNote, err := scaffold.ResolveLoop(projectDir, cmdutil.Resolve(o.WorkDir, o.DSL), o.Profile)
	if err != nil {
		return fmt.Errorf("claude install: %w", err)
	}

	logPath, err := project.LogPathFor(projectDir, o.State, o.Getenv)
	if err != nil {
		return cmdutil.Exitf(2, "claude install: %v", err)
	}
	if o.Scope == scopeUser && o.State == project.StateUser {
		return cmdutil.Exitf(2, "claude install: --state user keeps one project's log outside it; give it with --scope project or local")
	}
	store, note, err := cmdutil.StoreArg(o.Store)
	if err != nil {
		return err
	}
	if note != "" {
		fmt.Fprintln(o.IO.Out, note)
	}
	hooks := installHooks{Binary: binary, Matcher: toolMatcher(spec), Record: o.Record, Store: store, Mode: o.Mode}
	if o.Scope == scopeUser {
		// User settings serve every project: each finds its own loop file and
		// log from its root, unless --dsl names one loop for all.
		if o.DSL != "" {
			hooks.Config = scaffold.ShellQuote(loopPath)
		}
	} else {
		hooks.Config = pathArg(loopPath, projectDir, true)
		hooks.Log = pathArg(logPath, projectDir, true)
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
	if !write {
		cmdutil.DryRunNote(s.Out, "claude install")
	}
	if err := scaffold.WriteProfile(s.Out, write, loopPath, loopData, spec.Definition.ID, loopNote); err != nil {
		return fmt.Errorf("claude install: %w", err)
	}
	if o.Scope != scopeUser {
		if err := scaffold.WriteGitignore(s.Out, write, projectDir); err != nil {
			return fmt.Errorf("claude install: %w", err)
		}
	}
	switch {
	case bytes.Equal(old, merged):
		fmt.Fprintf(s.Out, "unchanged %s (hook-loop's hooks are already installed)\n", settingsPath)
	default:
		if write {
			if err := writeSettings(settingsPath, merged); err != nil {
				return fmt.Errorf("claude install: %w", err)
			}
		}
		state := "updated"
		if old == nil {
			state = "new file"
		}
		if link := scaffold.LinkNote(settingsPath); link != "" {
			state += "; " + link
		}
		scaffold.Report(s.Out, write, "write", settingsPath, fmt.Sprintf("%s: hooks for %d events, tool matcher %q", state, len(hookCommands(merged)), hooks.Matcher))
		if !write {
			fmt.Fprint(s.Out, scaffold.LineDiff(settingsPath, old, merged))
		}
	}
	fmt.Fprintf(s.Out, "hook command: %s\n", hooks.Command("<Event>"))
	return nil
}

func runUninstall(ctx context.Context, o *InstallOptions) error {
	s := o.IO
	_, settingsPath, err := claudeTarget(o)
	if err != nil {
		return fmt.Errorf("claude uninstall: %w", err)
	}
	old, err := os.ReadFile(settingsPath)
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(s.Out, "nothing to remove: %s does not exist\n", settingsPath)
		return nil
	}
	if err != nil {
		return fmt.Errorf("claude uninstall: read %s: %w", settingsPath, err)
	}
	out, n, err := removeSettings(old)
	if err != nil {
		return fmt.Errorf("claude uninstall: %s: %w", settingsPath, err)
	}
	if n == 0 {
		fmt.Fprintf(s.Out, "nothing to remove: no hook-loop hooks in %s\n", settingsPath)
		return nil
	}
	o.NoteDryRunWins()
	write := o.Writes() || !o.DryRun
	if !write {
		cmdutil.DryRunNote(s.Out, "claude uninstall")
	} else if err := writeSettings(settingsPath, out); err != nil {
		return fmt.Errorf("claude uninstall: %w", err)
	}
	scaffold.Render(s.Out, []scaffold.Change{{Path: settingsPath, Before: old, After: out,
		Note: fmt.Sprintf("remove %d hook-loop hook(s)", n)}}, nil, write)
	return nil
}
