package harness

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/hook-loop/hook-loop/internal/cmdutil"
	"github.com/urfave/cli/v2"
)

// Harness is everything hook-loop knows about one coding-agent harness. Each
// harness package (adapters/codex, adapters/claude, ...) exports one value
// implementing it; the registry lists them, and the CLI, doctor and the
// engine's protected files iterate the registry, so adding a harness is one
// folder plus one line.
type Harness interface {
	// Name is the short name: the <name>-hook and <name> install commands,
	// doctor's --harness value, and HookEvent.Harness.
	Name() string
	// NewAdapter returns a fresh adapter for one hook invocation.
	NewAdapter() Adapter
	// NativeEvents are the harness's own event names the adapter decodes.
	NativeEvents() []string
	// Hook describes the <name>-hook command.
	Hook() Hook
	// NewCmd builds the `<name>` command with its install and uninstall
	// subcommands.
	NewCmd(f *cmdutil.Factory) *cli.Command
	// Doctor checks that the harness will really run hook-loop's hooks.
	Doctor(env *DoctorEnv) []Finding
	// OwnedPaths are the files hook-loop writes into the harness's
	// configuration, which the agent may not write: relative to the project
	// root, or absolute under home (the user's, following the harness's own
	// variables through getenv). A trailing "/" is a folder: everything under
	// it is owned, and so is moving it.
	OwnedPaths(home string, getenv func(string) string) []string
}

// Hook is what differs between the harnesses' *-hook commands.
type Hook struct {
	Usage, UsageText, Description string
	// EventUsage is the --event flag's usage.
	EventUsage string
	// Project may replace the directory the project is looked up from, or
	// report that this invocation is not gated at all (the harness proceeds
	// silently; Project then drains in). nil: the working directory, gated.
	Project func(in io.Reader, getenv func(string) string, configPath, cwd string) (dir string, gated bool)
}

// Level is how serious a doctor finding is.
type Level string

const (
	LevelOK   Level = "ok"
	LevelWarn Level = "warn"
	LevelFail Level = "fail"
)

// Finding is one line of `hook-loop doctor`: what was checked or found, and
// what to do about it (empty for ok).
type Finding struct {
	Level   Level
	Harness string
	What    string
	Fix     string
}

// DoctorEnv is what the checks look at.
type DoctorEnv struct {
	Ctx       context.Context
	Dir       string // project root (absolute)
	CodexHome string // "" = $CODEX_HOME or ~/.codex
	CodexBin  string // "" = codex on PATH (trust is checked through its app-server)
	Home      string // the user's home ("" = os.UserHomeDir)
}

// Named sets the harness of findings that do not name one.
func Named(name string, fs []Finding) []Finding {
	for i := range fs {
		if fs[i].Harness == "" {
			fs[i].Harness = name
		}
	}
	return fs
}

// PrintFindings writes one line per finding, with its fix indented below.
func PrintFindings(w io.Writer, fs []Finding) (fails, warns int) {
	for _, f := range fs {
		fmt.Fprintf(w, "%-4s %s: %s\n", f.Level, f.Harness, f.What)
		if f.Fix != "" {
			fmt.Fprintf(w, "     fix: %s\n", strings.ReplaceAll(f.Fix, "\n", "\n          "))
		}
		switch f.Level {
		case LevelFail:
			fails++
		case LevelWarn:
			warns++
		}
	}
	return fails, warns
}
