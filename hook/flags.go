package hook

import (
	"flag"
	"io"
	"os"
	"strings"

	"github.com/hook-loop/hook-loop/project"
	"github.com/hook-loop/hook-loop/project/userconfig"
)

// Flags are the flags every *-hook command takes: those of the Python
// prototype hook-loop replaces (--event, --config, --event-log), so hook
// configurations it generated keep working, and hook-loop's own.
type Flags struct {
	Event       string
	ConfigPath  string
	LogPath     string
	HooksConfig string
	Store       string // --store: a postgres:// URL for the loop's log
	Record      bool
	Mode        string
	// State is where the log lives when --event-log does not say: "user" (the
	// user's state directory, what user-wide installs write) or "" / "project"
	// (<root>/.hook-loop, what hooks written before --state did expect).
	State string
}

// ParseFlags reads a hook's flags with the standard flag package, which reads
// them as the CLI does (--flag value, --flag=value, one or two dashes, the
// last one wins). ok is false for anything else — --help, an unknown flag, an
// argument — which the caller hands to the full CLI, so help and usage errors
// are the CLI's and the hook path never builds it.
func ParseFlags(args []string) (f Flags, ok bool) {
	fs := flag.NewFlagSet("hook", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.Event, "event", "", "")
	fs.StringVar(&f.ConfigPath, "config", "", "")
	fs.StringVar(&f.LogPath, "event-log", "", "")
	fs.StringVar(&f.HooksConfig, "hooks-config", "", "")
	fs.StringVar(&f.Store, "store", "", "")
	fs.StringVar(&f.Mode, "mode", "", "")
	fs.BoolVar(&f.Record, "record", false, "")
	fs.StringVar(&f.State, "state", "", "")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 || (f.State != "" && f.State != project.StateProject && f.State != project.StateUser) {
		return Flags{}, false
	}
	return f, true
}

// NeedsFull reports whether a hook with these flags needs what only the full
// hook-loop binary carries (hook/full): a database store (the flag or
// $HOOK_LOOP_STORE), or a user config, which may name a database or declare
// lifecycle hooks.
func (f Flags) NeedsFull(getenv func(string) string) bool {
	if getenv == nil {
		getenv = os.Getenv
	}
	return f.Store != "" || strings.TrimSpace(getenv(StoreEnv)) != "" || userconfig.Present(f.HooksConfig, getenv)
}
