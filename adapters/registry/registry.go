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

	claudeinstall "github.com/hook-loop/hook-loop/adapters/claude/install"
	codexinstall "github.com/hook-loop/hook-loop/adapters/codex/install"
	copilotinstall "github.com/hook-loop/hook-loop/adapters/copilot/install"
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

// Doctor runs the checks of hs (all, or only those of the named harnesses).
func Doctor(hs []setup.Harness, env *setup.DoctorEnv, names ...string) []setup.Finding {
	var out []setup.Finding
	for _, h := range hs {
		if len(names) > 0 && !slices.Contains(names, h.Name()) {
			continue
		}
		out = append(out, setup.Named(h.Name(), h.Doctor(env))...)
	}
	return out
}
