package codex

import (
	"path/filepath"

	"github.com/hook-loop/hook-loop/adapters/harness"
)

// Hooks is Codex CLI for the hook path's registry; install.Harness adds
// install and doctor.
var Hooks harness.Hooks = codexHooks{}

type codexHooks struct{}

func (codexHooks) Name() string                { return "codex" }
func (codexHooks) NewAdapter() harness.Adapter { return New() }
func (codexHooks) NativeEvents() []string      { return NativeEvents }

func (codexHooks) Hook() harness.Hook {
	return harness.Hook{
		Usage:      "the command Codex runs for a hook event (reads the event JSON on stdin)",
		UsageText:  "hook-loop codex-hook --event EVENT [--config FILE] [--event-log FILE] [--hooks-config FILE] [--record]",
		EventUsage: "Codex hook event name (default: the payload's hook_event_name)",
	}
}

// OwnedPaths are the project's .codex folder (hooks and trust entries) and
// the user's hooks and config in $CODEX_HOME (default ~/.codex).
func (codexHooks) OwnedPaths(home string, getenv func(string) string) []string {
	out := []string{".codex/"}
	dir := ""
	if getenv != nil {
		dir = getenv("CODEX_HOME")
	}
	if dir == "" && home != "" {
		dir = filepath.Join(home, ".codex")
	}
	if dir != "" {
		out = append(out, filepath.Join(dir, "hooks.json"), filepath.Join(dir, "config.toml"))
	}
	return out
}
