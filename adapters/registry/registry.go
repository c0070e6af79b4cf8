// Package registry lists the harnesses hook-loop serves, with their install
// and doctor sides (setup.Harness). The CLI (the <name> and <name>-hook
// commands), doctor and the engine's protected files iterate it. The hook
// path's lean list is adapters/registry/hooks. A new harness is its own folder
// under adapters/ (the adapter, with <name>/install for install and doctor)
// plus two lines: its install.Harness in All here and its Hooks in hooks.All,
// at the same place; TestListsAgree fails when the two lists differ.
package registry

import (
	"slices"
	"strings"

	claudeinstall "github.com/hook-loop/hook-loop/adapters/claude/install"
	codexinstall "github.com/hook-loop/hook-loop/adapters/codex/install"
	copilotinstall "github.com/hook-loop/hook-loop/adapters/copilot/install"
	geminiinstall "github.com/hook-loop/hook-loop/adapters/gemini/install"
	"github.com/hook-loop/hook-loop/adapters/harness"
	opencodeinstall "github.com/hook-loop/hook-loop/adapters/opencode/install"
	piinstall "github.com/hook-loop/hook-loop/adapters/pi/install"
	qweninstall "github.com/hook-loop/hook-loop/adapters/qwen/install"
	"github.com/hook-loop/hook-loop/adapters/setup"
)

// All are the harnesses, in the order doctor checks them.
func All() []setup.Harness {
	return []setup.Harness{
		codexinstall.Harness,
		opencodeinstall.Harness,
		piinstall.Harness,
		claudeinstall.Harness,
		geminiinstall.Harness,
		copilotinstall.Harness,
		qweninstall.Harness,
	}
}

// Hooks are the hook sides of hs, for adapters/registry/hooks' OwnedPaths and
// Adapters.
func Hooks(hs []setup.Harness) []harness.Hooks {
	out := make([]harness.Hooks, len(hs))
	for i, h := range hs {
		out[i] = h
	}
	return out
}

// Doctor runs the checks of hs: of the named harnesses, or with no names
// of those hook-loop is installed for (setup.NotInstalled); when it is
// installed for none, one failing finding says so, with the commands that
// install it.
func Doctor(hs []setup.Harness, env *setup.DoctorEnv, names ...string) []setup.Finding {
	var out []setup.Finding
	var all []string
	for _, h := range hs {
		all = append(all, h.Name())
		if len(names) > 0 && !slices.Contains(names, h.Name()) {
			continue
		}
		fs := h.Doctor(env)
		if len(names) == 0 && setup.NotInstalled(fs) {
			continue
		}
		out = append(out, setup.Named(h.Name(), fs)...)
	}
	if len(names) == 0 && len(out) == 0 {
		out = append(out, setup.Finding{Level: setup.LevelFail, Harness: "hook-loop",
			What: "installed for no harness in " + env.Dir + " (nor in the user's settings): no hook runs it here",
			Fix:  "hook-loop install HARNESS --write, HARNESS one of " + strings.Join(all, ", ") + " (doctor --harness HARNESS checks one)"})
	}
	return out
}
