package codex

import (
	"path/filepath"

	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/adapters/setup"
	"github.com/hook-loop/hook-loop/internal/cmdutil"
	"github.com/urfave/cli/v2"
)

// Harness is Codex CLI for the registry.
var Harness setup.Harness = codexHarness{}

type codexHarness struct{}

func (codexHarness) Name() string                           { return "codex" }
func (codexHarness) NewAdapter() harness.Adapter            { return New() }
func (codexHarness) NativeEvents() []string                 { return NativeEvents }
func (codexHarness) NewCmd(f *cmdutil.Factory) *cli.Command { return NewCmd(f) }
func (codexHarness) Doctor(env *setup.DoctorEnv) []setup.Finding {
	return checkInstall(env)
}

func (codexHarness) Hook() harness.Hook {
	return harness.Hook{
		Usage:      "the command Codex runs for a hook event (reads the event JSON on stdin)",
		UsageText:  "hook-loop codex-hook --event EVENT [--config FILE] [--event-log FILE] [--hooks-config FILE] [--record]",
		EventUsage: "Codex hook event name (default: the payload's hook_event_name)",
	}
}

// OwnedPaths are the project's .codex folder (hooks and trust entries) and
// the user's hooks and config in $CODEX_HOME (default ~/.codex).
func (codexHarness) OwnedPaths(home string, getenv func(string) string) []string {
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
