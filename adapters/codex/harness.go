package codex

import (
	"path/filepath"

	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/internal/cmdutil"
	"github.com/urfave/cli/v2"
)

// Harness is Codex CLI for the registry.
var Harness harness.Harness = codexHarness{}

type codexHarness struct{}

func (codexHarness) Name() string                           { return "codex" }
func (codexHarness) NewAdapter() harness.Adapter            { return New() }
func (codexHarness) NativeEvents() []string                 { return NativeEvents }
func (codexHarness) NewCmd(f *cmdutil.Factory) *cli.Command { return NewCmd(f) }
func (codexHarness) Doctor(env *harness.DoctorEnv) []harness.Finding {
	return checkInstall(env)
}

func (codexHarness) Hook() harness.Hook {
	return harness.Hook{
		Usage:      "the command Codex runs for a hook event (reads the event JSON on stdin)",
		UsageText:  "hook-loop codex-hook --event EVENT [--config FILE] [--event-log FILE] [--hooks-config FILE] [--record]",
		EventUsage: "Codex hook event name (default: the payload's hook_event_name)",
	}
}

// OwnedPaths are the hooks and the trust entries install writes, in the
// project's .codex and in the user's (~/.codex; $CODEX_HOME is not followed
// here: the engine's list is fixed per process).
func (codexHarness) OwnedPaths(home string) []string {
	out := []string{".codex/hooks.json", ".codex/config.toml"}
	if home != "" {
		out = append(out, filepath.Join(home, ".codex", "hooks.json"), filepath.Join(home, ".codex", "config.toml"))
	}
	return out
}
