// Package hooks lists the harnesses as the hook path sees them: each one's
// adapter, hook spec and owned files (harness.Hooks), without the install and
// doctor code adapters/registry's full list brings. A <name>-hook binary that
// must start fast and stay small links this list, not that one. The two lists
// name the same harnesses in the same order; a test in adapters/registry fails
// when they do not.
package hooks

import (
	"path/filepath"

	"github.com/hook-loop/hook-loop/adapters/claude"
	"github.com/hook-loop/hook-loop/adapters/codex"
	"github.com/hook-loop/hook-loop/adapters/copilot"
	"github.com/hook-loop/hook-loop/adapters/gemini"
	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/adapters/opencode"
	"github.com/hook-loop/hook-loop/adapters/pi"
	"github.com/hook-loop/hook-loop/adapters/qwen"
)

// All are the harnesses' hook sides, in registry.All's order.
func All() []harness.Hooks {
	return []harness.Hooks{
		codex.Hooks,
		opencode.Hooks,
		pi.Hooks,
		claude.Hooks,
		gemini.Hooks,
		copilot.Hooks,
		qwen.Hooks,
	}
}

// Adapters returns a fresh adapter per harness name; replay and demo pick from it.
func Adapters(hs []harness.Hooks) map[string]harness.Adapter {
	out := make(map[string]harness.Adapter, len(hs))
	for _, h := range hs {
		out[h.Name()] = h.NewAdapter()
	}
	return out
}

// OwnedPaths are the files every harness's install writes, which the agent may
// not write: relative to the project root, or absolute under home (getenv
// gives the harnesses' own variables, such as $CODEX_HOME; nil reads none). It
// is the engine's list of protected harness files; a trailing "/" is a folder.
func OwnedPaths(hs []harness.Hooks, home string, getenv func(string) string) []string {
	var out []string
	for _, h := range hs {
		for _, p := range h.OwnedPaths(home, getenv) {
			if !filepath.IsAbs(p) {
				p = filepath.FromSlash(p)
			}
			out = append(out, p)
		}
	}
	return out
}
