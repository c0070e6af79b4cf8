// Package cmdutil is what every hook-loop command is built from, after
// cli/cli's pkg/cmdutil: the Factory that hands a command its IO streams and
// working directory, the exit-status error, and the flags the four harnesses'
// install commands share. The CLI (internal/cmd) and the harness packages
// (adapters/<name>) both import it; it imports neither.
package cmdutil

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

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
		&cli.BoolFlag{Name: "dry-run", Value: true, Usage: "print the files and the exact changes without writing (the default)", Destination: dryRun},
		&cli.BoolFlag{Name: "write", Usage: "write the changes", Destination: write},
	}
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

// ProjectDir is an install's --destination made absolute against the working
// directory wd ("" = wd itself).
func ProjectDir(wd, destination string) (string, error) {
	if filepath.IsAbs(destination) {
		return filepath.Clean(destination), nil
	}
	if wd == "" {
		return filepath.Abs(destination)
	}
	return filepath.Join(wd, destination), nil
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
}

// Action is an install command's Action: it fills c from the factory, then
// runs runF (a test's) when set, else the command's own run.
func Action[O any](f *Factory, c *Common, o *O, runF func(*O) error, run func(context.Context, *O) error) cli.ActionFunc {
	return func(ctx *cli.Context) error {
		wd, err := f.Getwd()
		if err != nil {
			return err
		}
		c.IO, c.WorkDir, c.Getenv, c.Version = f.IOStreams, wd, f.Getenv, f.Version
		if runF != nil {
			return runF(o)
		}
		return run(ctx.Context, o)
	}
}
