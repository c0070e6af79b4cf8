// Package registry lists the harnesses hook-loop serves. The CLI (the <name>
// and <name>-hook commands), doctor and the engine's protected files iterate
// it, so a new harness is its own folder under adapters/ plus one line here.
package registry

import (
	"path/filepath"
	"slices"

	claudeinstall "github.com/hook-loop/hook-loop/adapters/claude/install"
	codexinstall "github.com/hook-loop/hook-loop/adapters/codex/install"
	"github.com/hook-loop/hook-loop/adapters/harness"
	opencodeinstall "github.com/hook-loop/hook-loop/adapters/opencode/install"
	piinstall "github.com/hook-loop/hook-loop/adapters/pi/install"
	"github.com/hook-loop/hook-loop/adapters/setup"
)

// All are the harnesses, in the order doctor checks them.
func All() []setup.Harness {
	return []setup.Harness{
		codexinstall.Harness,
		opencodeinstall.Harness,
		piinstall.Harness,
		claudeinstall.Harness,
	}
}

// Adapters returns a fresh adapter per harness name; replay and demo pick from it.
func Adapters(hs []setup.Harness) map[string]harness.Adapter {
	out := make(map[string]harness.Adapter, len(hs))
	for _, h := range hs {
		out[h.Name()] = h.NewAdapter()
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

// OwnedPaths are the files every harness's install writes, which the agent may
// not write: relative to the project root, or absolute under home (getenv
// gives the harnesses' own variables, such as $CODEX_HOME; nil reads none). It
// is the engine's list of protected harness files; a trailing "/" is a folder.
func OwnedPaths(hs []setup.Harness, home string, getenv func(string) string) []string {
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
