package install

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/hook-loop/hook-loop/cli/cmdutil"
	"github.com/urfave/cli/v2"
)

// InstallOptions are the flags of `codex install` / `codex uninstall`
// (the Python prototype's, plus trust and uninstall's purge).
type InstallOptions struct {
	cmdutil.Common

	Target    string
	CodexHome string
	CodexBin  string
	Trust     bool
	NoTrust   bool
}

// NewCmd builds the `codex` command: install and uninstall.
func NewCmd(f *cmdutil.Factory) *cli.Command {
	return cmdutil.NewHarnessCmd(f, "codex", "install hook-loop into Codex CLI's hooks, or remove it", installCmd, uninstallCmd)
}

// installCmd is `codex install`.
var installCmd = cmdutil.InstallCmd[*InstallOptions]{
	Name:      "install",
	Usage:     "write hook-loop's hooks.json entries (merged into an existing file) and the loop file",
	UsageText: "hook-loop codex install [--profile NAME | --dsl FILE] [--scope project|user|directory] [--destination DIR] [--write [--trust]]",
	Where:     whereFlags,
	DSLUsage:  cmdutil.CopiedDSLUsage,
	Binary:    true,
	Flags: func(o *InstallOptions) []cli.Flag {
		return []cli.Flag{
			&cli.BoolFlag{Name: "trust", Usage: "mark the project and exactly hook-loop's hooks trusted through codex app-server, so Codex runs them", Destination: &o.Trust},
			&cli.BoolFlag{Name: "no-trust", Usage: "write changed hooks even though Codex trusted the earlier ones (it then skips them until they are trusted again)", Destination: &o.NoTrust},
		}
	},
	Run: runInstall,
}

// uninstallCmd is `codex uninstall`.
var uninstallCmd = cmdutil.InstallCmd[*InstallOptions]{
	Name:      "uninstall",
	Usage:     "remove what install added: hook-loop's hooks and their trust entries",
	UsageText: "hook-loop codex uninstall [--scope project|user|directory] [--destination DIR] [--write] [--purge]",
	Where:     whereFlags,
	Binary:    true,
	Purge:     true,
	Run:       runUninstall,
}

func whereFlags(o *InstallOptions) []cli.Flag {
	return []cli.Flag{
		// --scope as every harness names it; --target, Codex's first name for
		// it, still works.
		&cli.StringFlag{Name: "scope", Aliases: []string{"target"}, Value: targetProject, Usage: "project (<dest>/.codex/hooks.json), user ($CODEX_HOME/hooks.json) or directory (a project that is not a git checkout)", Destination: &o.Target},
		&cli.StringFlag{Name: "codex-home", Usage: "Codex's home directory (default: $CODEX_HOME or ~/.codex)", Destination: &o.CodexHome},
		&cli.StringFlag{Name: "codex-bin", Usage: "codex executable used for trust (default: codex on PATH)", Destination: &o.CodexBin},
	}
}

func (o *InstallOptions) scaffold() planOptions {
	return planOptions{Profile: o.Profile, DSLPath: o.DSL, Target: o.Target, Destination: o.ProjectDest(),
		CodexHome: o.CodexHome, Binary: o.Binary, Purge: o.Purge, Record: o.Record, Store: o.Store, State: o.State, Getenv: o.Getenv, Mode: o.Mode}
}

func runInstall(ctx context.Context, o *InstallOptions) error {
	s := o.IO
	o.NoteProfileIgnored(o.DSL, o.Profile)
	o.NoteDryRunWins()
	if o.Trust && o.NoTrust {
		return cmdutil.Exitf(2, "usage: give --trust or --no-trust, not both")
	}
	plan, err := planInstall(o.scaffold())
	if err != nil {
		return err
	}
	write := o.Writes()
	if n := plan.untrusts(); n > 0 && !o.Trust && !o.NoTrust {
		msg := fmt.Sprintf("this install changes hook-loop's hooks in %s, and Codex trusted %d of them by their hash: changed, they are untrusted and Codex skips them silently. Add --trust to trust the new hooks (or --no-trust to write them untrusted)", plan.HooksPath, n)
		if write {
			return cmdutil.Exitf(1, "codex install: %s; nothing written", msg)
		}
		fmt.Fprintln(s.ErrOut, "hook-loop: WARNING: "+msg)
	}
	if !write {
		cmdutil.DryRunNote(s.Out, "codex install")
	}
	fmt.Fprintf(s.Out, "hook binary: %s\n", plan.Binary)
	trustProject := plan.Target != targetUser
	if err := plan.Carry(s.Out, write); err != nil {
		return err
	}
	if !write {
		if o.Trust {
			what := "hook-loop's hooks"
			if trustProject {
				what = "the project " + plan.Dest + " and " + what
			}
			fmt.Fprintf(s.Out, "trust: would mark %s trusted in %s through codex app-server\n", what, plan.CodexHome+"/config.toml")
		} else {
			fmt.Fprintln(s.Out, "trust: Codex skips untrusted hooks silently; add --trust (or approve them in codex's /hooks screen)")
		}
		return nil
	}
	if !o.Trust {
		fmt.Fprintln(s.Out, "trust: not changed; Codex skips untrusted hooks silently (run again with --trust, or check with hook-loop doctor)")
		return nil
	}
	bin, err := findCodex(o.CodexBin)
	if err != nil {
		return fmt.Errorf("--trust: %w", err)
	}
	res, err := TrustCodex(ctx, bin, plan.CodexHome, plan.Dest, plan.HooksPath, trustProject)
	if err != nil {
		return fmt.Errorf("--trust: %w", err)
	}
	if err := writeRecord(plan.Dest, installRecord{HooksPath: plan.HooksPath, CodexHome: plan.CodexHome,
		ProjectTrustAdded: res.ProjectTrustAdded, TrustedKeys: append(res.TrustedKeys, res.AlreadyTrusted...)}); err != nil {
		return err
	}
	if res.ProjectTrustAdded {
		fmt.Fprintf(s.Out, "trust: marked the project %s trusted\n", plan.Dest)
	}
	fmt.Fprintf(s.Out, "trust: %d hook(s) trusted, %d already trusted, in %s/config.toml\n", len(res.TrustedKeys), len(res.AlreadyTrusted), plan.CodexHome)
	return nil
}

func runUninstall(ctx context.Context, o *InstallOptions) error {
	s := o.IO
	o.NoteDryRunWins()
	plan, err := planUninstall(o.scaffold())
	if err != nil {
		return err
	}
	rec, recErr := readRecord(plan.Dest)
	if recErr != nil && !errors.Is(recErr, os.ErrNotExist) {
		return recErr
	}
	if !o.Writes() {
		fmt.Fprintln(s.Out, "hook-loop codex uninstall: dry run, nothing is changed (add --write to apply)")
	}
	if !o.Write {
		plan.Render(s.Out, false)
	}
	// Trust entries exist only if install --trust made them (it leaves a record).
	trusted := recErr == nil
	untrustProject := trusted && rec.ProjectTrustAdded
	if !o.Writes() {
		if trusted {
			fmt.Fprintf(s.Out, "trust: would remove the trust entries of hook-loop's hooks from %s/config.toml", plan.CodexHome)
			if untrustProject {
				fmt.Fprintf(s.Out, " and the project trust install added")
			}
			fmt.Fprintln(s.Out)
		}
		return nil
	}
	// Trust entries first: their keys come from the hooks still installed.
	if trusted {
		if bin, err := findCodex(o.CodexBin); err != nil {
			fmt.Fprintf(s.ErrOut, "hook-loop: warning: trust entries left in %s/config.toml: %v\n", plan.CodexHome, err)
		} else {
			keys, err := untrustCodex(ctx, bin, plan.CodexHome, plan.Dest, plan.HooksPath, untrustProject)
			if err != nil {
				return fmt.Errorf("remove trust entries: %w", err)
			}
			fmt.Fprintf(s.Out, "trust: removed %d hook trust entr(ies)", len(keys))
			if untrustProject {
				fmt.Fprintf(s.Out, " and the project trust install added")
			}
			fmt.Fprintln(s.Out)
		}
	}
	if err := plan.Apply(); err != nil {
		return err
	}
	plan.Render(s.Out, true)
	if !o.Purge {
		if err := removeRecord(plan.Dest); err != nil {
			return err
		}
	}
	return nil
}
