package cmd

import (
	"context"
	"strconv"
	"strings"

	"github.com/hook-loop/hook-loop/adapters/harness"
)

// runHookDirect runs `<name>-hook FLAGS` without building the CLI: a hook runs
// on every tool call, and building every command first costs it a third of a
// millisecond. It reads the hook's flags as urfave/cli does (--flag value,
// --flag=value, one or two dashes, the last one wins) and returns ok=false for
// anything else — --help, an unknown flag, an argument, a missing value — which
// the caller then hands to the full CLI, so help and usage errors are the CLI's.
func runHookDirect(f *Factory, hs []harness.Harness, args []string) (code int, ok bool) {
	if len(args) < 2 || !strings.HasSuffix(args[1], "-hook") {
		return 0, false
	}
	var h harness.Harness
	for _, c := range hs {
		if c.Name()+"-hook" == args[1] {
			h = c
		}
	}
	if h == nil {
		return 0, false
	}
	o := &HookOptions{Harness: h}
	if !o.parseFlags(args[2:]) {
		return 0, false
	}
	o.setEnv(f, hs)
	return exitCode(f.IOStreams.ErrOut, runHook(context.Background(), o)), true
}

// parseFlags sets o from a hook's flags; false when they are not plain ones.
func (o *HookOptions) parseFlags(args []string) bool {
	strs := map[string]*string{"event": &o.Event, "config": &o.ConfigPath, "event-log": &o.LogPath, "hooks-config": &o.HooksConfig, "store": &o.Store, "mode": &o.Mode}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, ok := strings.CutPrefix(a, "-")
		if !ok || name == "" || name == "-" {
			return false
		}
		name = strings.TrimPrefix(name, "-")
		name, value, hasValue := strings.Cut(name, "=")
		if name == "record" {
			b := true
			if hasValue {
				var err error
				if b, err = strconv.ParseBool(value); err != nil {
					return false
				}
			}
			o.Record = b
			continue
		}
		p, known := strs[name]
		if !known {
			return false
		}
		if !hasValue {
			if i+1 >= len(args) {
				return false
			}
			i++
			value = args[i]
		}
		*p = value
	}
	return true
}
