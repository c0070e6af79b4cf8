// Package setup is the install and doctor side of the contract between
// hook-loop and one coding-agent harness: the Harness that, beyond the hook
// path's harness.Hooks, installs hook-loop into the harness and checks the
// installation, and the checks and findings doctor shares. The hook path
// (adapters/harness) stays free of the CLI and install code this imports.
package setup

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/cli/cmdutil"
	"github.com/urfave/cli/v2"
)

// Harness is everything hook-loop knows about one coding-agent harness. Each
// harness's install package (adapters/codex/install, ...) exports one value
// implementing it; adapters/registry lists them, and the CLI, doctor and the
// engine's protected files iterate the registry.
type Harness interface {
	harness.Hooks
	// NewCmd builds the `<name>` command with its install and uninstall
	// subcommands.
	NewCmd(f *cmdutil.Factory) *cli.Command
	// Doctor checks that the harness will really run hook-loop's hooks.
	Doctor(env *DoctorEnv) []Finding
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

// NotInstalledPrefix opens the finding a harness's Doctor returns, alone,
// when hook-loop is not installed for it: doctor then leaves the harness out
// unless it was asked for.
const NotInstalledPrefix = "hook-loop is not installed for "

// NotInstalled reports whether fs is a harness's "not installed" answer.
func NotInstalled(fs []Finding) bool {
	return len(fs) == 1 && strings.HasPrefix(fs[0].What, NotInstalledPrefix)
}

// PrintFindings writes one line per finding, with its fix indented below. An
// ok finding's advice is a note, not a fix: nothing there is broken.
func PrintFindings(w io.Writer, fs []Finding) (fails, warns int) {
	for _, f := range fs {
		fmt.Fprintf(w, "%-4s %s: %s\n", f.Level, f.Harness, f.What)
		if f.Fix != "" {
			label := "fix:"
			if f.Level == LevelOK {
				label = "note:"
			}
			fmt.Fprintf(w, "     %s %s\n", label, strings.ReplaceAll(f.Fix, "\n", "\n          "))
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
