// Package cmdutil is what every hook-loop command is built from, after
// cli/cli's pkg/cmdutil: the Factory that hands a command its IO streams and
// working directory, the exit-status error, and the flags the four harnesses'
// install commands share. The CLI (package cli) and the harness packages
// (adapters/<name>) both import it; it imports neither.
package cmdutil

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/hook-loop/hook-loop/project"
	"github.com/urfave/cli/v2"
)

// IOStreams are the streams a command reads and writes.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// Factory hands every command what it must not take from the process itself,
// so tests run commands in-process with their own streams and directory.
type Factory struct {
	IOStreams *IOStreams
	// Getwd is the working directory commands resolve relative paths against.
	Getwd func() (string, error)
	// Getenv reads the environment (CLAUDE_PROJECT_DIR, CODEX_HOME, ...).
	Getenv func(string) string
	// HomeDir is the user's home: user-level harness files live under it.
	HomeDir func() (string, error)
	// Version is hook-loop's version, written into generated plugins.
	Version string
}

// New is the Factory of a real process: its working directory and environment.
func New(s *IOStreams, version string) *Factory {
	return &Factory{IOStreams: s, Getwd: os.Getwd, Getenv: os.Getenv, HomeDir: os.UserHomeDir, Version: version}
}

// Cwd is the working directory, "" when it cannot be read (a command then
// resolves against "." as the process would).
func (f *Factory) Cwd() string {
	if f.Getwd == nil {
		return ""
	}
	wd, _ := f.Getwd()
	return wd
}

// Home is the user's home directory, "" when unknown.
func (f *Factory) Home() string {
	if f.HomeDir == nil {
		return ""
	}
	h, _ := f.HomeDir()
	return h
}

// ExitError carries a specific exit status with an optional one-line message.
// A command returns it when the status is part of its contract (validate's 1,
// a hook's 2) rather than a failure.
type ExitError struct {
	Code    int
	Message string
}

func (e *ExitError) Error() string { return e.Message }

// Exitf builds an ExitError with a formatted message.
func Exitf(code int, format string, args ...any) *ExitError {
	return &ExitError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// The flags every install and uninstall command shares, so that the four
// harnesses' commands read and behave alike: a dry run unless --write.

// DryRunWriteFlags are --dry-run (the default) and --write.
func DryRunWriteFlags(dryRun, write *bool) []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "dry-run", Value: true, Usage: "print the files and the exact changes without writing (the default; given with --write, it wins)", Destination: dryRun},
		&cli.BoolFlag{Name: "write", Usage: "write the changes", Destination: write},
	}
}

// StateFlag is install's --state: user keeps the event log (with its key and
// pinned loops) in the user's state directory, outside the workspace, where
// a harness's write sandbox keeps every command of the agent away from it.
func StateFlag(state *string) cli.Flag {
	return &cli.StringFlag{Name: "state", Value: "user", Usage: "where the event log lives: user (the user's state directory, outside the workspace, where a harness's write sandbox keeps the agent from it) or project (<project>/.hook-loop, as installs before this default did)", Destination: state}
}

// DryRunNote is the first line of every install's and uninstall's dry run, the
// same for the four harnesses; cmd is "codex install", "pi uninstall", ...
func DryRunNote(w io.Writer, cmd string) {
	fmt.Fprintf(w, "hook-loop %s: dry run, nothing is written (add --write to apply)\n", cmd)
}

// RecordFlag is install's --record: the hooks keep their raw inputs for replay.
func RecordFlag(record *bool) cli.Flag {
	return &cli.BoolFlag{Name: "record", Usage: "hooks also keep every raw input in .hook-loop/trace.jsonl, for hook-loop replay", Destination: record}
}

// ModeFlag is an install's --mode: the hooks run the loop in that mode
// (enforce, warn, audit) whatever loop.mode says; HOOK_LOOP_MODE still wins.
func ModeFlag(mode *string) cli.Flag {
	return &cli.StringFlag{Name: "mode", Usage: "enforce, warn or audit: hooks run the loop in this `MODE`, overriding loop.mode (HOOK_LOOP_MODE overrides both)", Destination: mode,
		Action: func(_ *cli.Context, v string) error {
			if v != "enforce" && v != "warn" && v != "audit" {
				return Exitf(2, "usage: --mode: expected enforce, warn or audit, got %q", v)
			}
			return nil
		}}
}

// ProjectDir is an install's --destination made absolute against the working
// directory wd ("" = the project root wd belongs to: project.Root).
func ProjectDir(wd, destination string) (string, error) {
	if destination == "" {
		// The project the current directory belongs to, as status and log
		// find it: a subdirectory never starts a second project.
		if wd == "" {
			wd = "."
		}
		return project.Root(wd), nil
	}
	if filepath.IsAbs(destination) {
		return filepath.Clean(destination), nil
	}
	if wd == "" {
		return filepath.Abs(destination)
	}
	return filepath.Join(wd, destination), nil
}

// RootNote is the line a command that writes into the project prints when,
// with no --destination, it works on a project root above the working
// directory: the user sees where the files go before they look for them.
func RootNote(w io.Writer, wd, destination, root string) {
	if destination != "" || wd == "" {
		return
	}
	if abs, err := filepath.Abs(wd); err == nil && abs != root {
		fmt.Fprintf(w, "project: %s (found above %s; --destination . works on this directory instead)\n", root, abs)
	}
}

// Resolve makes a path flag's value absolute against wd; "" stays "" (the
// command's default applies) and so does everything when wd is unknown.
func Resolve(wd, path string) string {
	if path == "" || wd == "" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(wd, path)
}

// Common is what every install and uninstall takes from the factory, and the
// flags they all share; each harness embeds it in its options.
type Common struct {
	IO      *IOStreams
	WorkDir string // the directory relative paths are resolved against
	Getenv  func(string) string
	Version string
	DryRun  bool
	Write   bool
	// DryRunGiven: --dry-run was on the command line (it is on by default,
	// so DryRun alone cannot tell).
	DryRunGiven bool
	// State is --state: where the project's log lives (project or user).
	State string
	Install
}

// Writes reports whether the command writes: --write, unless --dry-run was
// given too (the Python prototype's rule: the dry run wins).
func (c *Common) Writes() bool { return c.Write && !(c.DryRunGiven && c.DryRun) }

// NoteDryRunWins says, when --dry-run and --write were both given, that the
// dry run wins, so that a user who expected a write is not left guessing.
func (c *Common) NoteDryRunWins() {
	if c.Write && !c.Writes() {
		fmt.Fprintln(c.IO.Out, "note: --dry-run and --write both given: the dry run wins, nothing is written")
	}
}

// NoteProfileIgnored says, when --dsl and --profile were both given, that the
// --dsl file is the loop written (the prototype embeds it: it wins).
func (c *Common) NoteProfileIgnored(dsl, profile string) {
	if dsl != "" && profile != "" {
		fmt.Fprintf(c.IO.Out, "note: --dsl %s wins over --profile %s (the loop written is the --dsl file)\n", dsl, profile)
	}
}

// Action is an install command's Action: it fills c from the factory, then
// runs runF (a test's) when set, else the command's own run.
func Action[P any](f *Factory, c *Common, o P, runF func(P) error, run func(context.Context, P) error) cli.ActionFunc {
	return func(ctx *cli.Context) error {
		wd, err := f.Getwd()
		if err != nil {
			return err
		}
		c.IO, c.WorkDir, c.Getenv, c.Version = f.IOStreams, wd, f.Getenv, f.Version
		c.DryRunGiven = ctx.IsSet("dry-run")
		if c.State != "" && c.State != "project" && c.State != "user" {
			return Exitf(2, "usage: --state %q: expected project or user", c.State)
		}
		if runF != nil {
			return runF(o)
		}
		if root, err := ProjectDir(wd, c.Destination); err == nil {
			RootNote(c.IO.Out, wd, c.Destination, root)
		}
		return run(ctx.Context, o)
	}
}
