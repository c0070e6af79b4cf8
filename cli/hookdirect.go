package cli

import (
	"context"
	"strings"

	"github.com/hook-loop/hook-loop/adapters/setup"
	"github.com/hook-loop/hook-loop/hook"
)

// runHookDirect runs `<name>-hook FLAGS` without building the CLI, which a
// hook, run on every tool call, would pay for at every event. Flags it cannot
// read plainly (hook.ParseFlags) — --help, an
// unknown flag, an argument — return ok=false, and the caller hands them to
// the full CLI, so help and usage errors are the CLI's.
func runHookDirect(f *Factory, hs []setup.Harness, args []string) (code int, ok bool) {
	if len(args) < 2 || !strings.HasSuffix(args[1], "-hook") {
		return 0, false
	}
	var h setup.Harness
	for _, c := range hs {
		if c.Name()+"-hook" == args[1] {
			h = c
		}
	}
	if h == nil {
		return 0, false
	}
	flags, ok := hook.ParseFlags(args[2:])
	if !ok {
		return 0, false
	}
	o := &HookOptions{Harness: h, Flags: flags}
	o.setEnv(f, hs)
	return exitCode(f.IOStreams.ErrOut, runHook(context.Background(), o)), true
}
