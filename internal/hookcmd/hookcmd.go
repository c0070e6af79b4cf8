// Package hookcmd is the <harness>-hook command without the CLI around it:
// its flags, read as urfave/cli reads them, and one run of it. hook-loop
// (internal/cmd) and the lean hook binary (cmd/hook-loop-hook) both run hooks
// through it, so a hook answers alike from either.
package hookcmd

import (
	"context"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/internal/hookd/wire"
	"github.com/hook-loop/hook-loop/internal/hookrun"
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
}

// Parse reads a hook's flags as urfave/cli does (--flag value, --flag=value,
// one or two dashes, the last one wins). ok is false for anything else —
// --help, an unknown flag, an argument, a missing value — which the caller
// hands to the full CLI, so help and usage errors are the CLI's.
func Parse(args []string) (f Flags, ok bool) {
	strs := map[string]*string{"event": &f.Event, "config": &f.ConfigPath, "event-log": &f.LogPath, "hooks-config": &f.HooksConfig, "store": &f.Store, "mode": &f.Mode}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, ok := strings.CutPrefix(a, "-")
		if !ok || name == "" || name == "-" {
			return f, false
		}
		name = strings.TrimPrefix(name, "-")
		name, value, hasValue := strings.Cut(name, "=")
		if name == "record" {
			b := true
			if hasValue {
				var err error
				if b, err = strconv.ParseBool(value); err != nil {
					return f, false
				}
			}
			f.Record = b
			continue
		}
		p, known := strs[name]
		if !known {
			return f, false
		}
		if !hasValue {
			if i+1 >= len(args) {
				return f, false
			}
			i++
			value = args[i]
		}
		*p = value
	}
	return f, true
}

// NeedsFull reports whether a hook with these flags needs what only the full
// hook-loop binary carries (internal/hookrun/full): a database store (the
// flag or $HOOK_LOOP_STORE), or a user config, which may name a database or
// declare lifecycle hooks.
func (f Flags) NeedsFull(getenv func(string) string) bool {
	if getenv == nil {
		getenv = os.Getenv
	}
	return f.Store != "" || strings.TrimSpace(getenv(hookrun.StoreEnv)) != "" || userconfig.Present(f.HooksConfig, getenv)
}

// Options are one hook run's inputs besides its flags.
type Options struct {
	Harness harness.Hooks
	Flags
	In          io.Reader
	Out, ErrOut io.Writer
	Getenv      func(string) string
	WorkDir     string
	// OwnedPaths are every harness's files, which the agent may not write.
	OwnedPaths []string
	// With adds what the binary carries beyond the lean hook (full.With in
	// hook-loop); nil runs the lean hook.
	With func(hookrun.Options) hookrun.Options
}

// Run runs the hook, writes its answer and returns the exit status, which is
// part of the answer.
func Run(ctx context.Context, o Options) int {
	cwd := o.WorkDir
	if project := o.Harness.Hook().Project; project != nil {
		dir, gated := project(o.In, o.Getenv, o.ConfigPath, cwd)
		if !gated {
			return 0
		}
		cwd = dir
	}
	ho := hookrun.Options{
		Adapter:     o.Harness.NewAdapter(),
		Event:       o.Event,
		ConfigPath:  o.ConfigPath,
		LogPath:     o.LogPath,
		HooksConfig: o.HooksConfig,
		Store:       o.Store,
		Getenv:      o.Getenv,
		Record:      o.Record,
		Mode:        hookrun.Mode(o.Getenv, o.Mode),
		Stdin:       o.In,
		Cwd:         cwd,
		OwnedPaths:  o.OwnedPaths,
		Lost:        o.Getenv(wire.LostEnv),
	}
	if o.With != nil {
		ho = o.With(ho)
	}
	out := hookrun.Run(ctx, ho)
	// Nothing to say is no write at all: two system calls fewer per event.
	if len(out.Stdout) > 0 {
		o.Out.Write(out.Stdout)
	}
	if len(out.Stderr) > 0 {
		o.ErrOut.Write(out.Stderr)
	}
	return out.Exit
}
