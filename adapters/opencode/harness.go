package opencode

import (
	"path"
	"path/filepath"

	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/adapters/setup"
	"github.com/hook-loop/hook-loop/internal/cmdutil"
	"github.com/urfave/cli/v2"
)

// Harness is opencode for the registry.
var Harness setup.Harness = opencodeHarness{}

type opencodeHarness struct{}

func (opencodeHarness) Name() string                           { return "opencode" }
func (opencodeHarness) NewAdapter() harness.Adapter            { return New() }
func (opencodeHarness) NativeEvents() []string                 { return NativeEvents }
func (opencodeHarness) NewCmd(f *cmdutil.Factory) *cli.Command { return NewCmd(f) }
func (opencodeHarness) Doctor(env *setup.DoctorEnv) []setup.Finding {
	return checkInstall(env)
}

func (opencodeHarness) Hook() harness.Hook {
	return harness.Hook{
		Usage:      "the command the opencode plugin runs for an event (reads the event JSON on stdin, answers one JSON line)",
		UsageText:  "hook-loop opencode-hook --event EVENT --config FILE --event-log FILE [--hooks-config FILE] [--record]",
		EventUsage: "opencode hook or event name, e.g. tool.execute.before (default: the payload's \"hook\")",
	}
}

// OwnedPaths are the project's plugin folder and the plugin's place in
// opencode's global plugin folder ($XDG_CONFIG_HOME/opencode/plugins): install
// writes only the first, but a plugin put in the second runs in every project.
func (opencodeHarness) OwnedPaths(home string, getenv func(string) string) []string {
	out := []string{path.Dir(pluginRel) + "/"}
	dir := ""
	if getenv != nil {
		dir = getenv("XDG_CONFIG_HOME")
	}
	if dir == "" && home != "" {
		dir = filepath.Join(home, ".config")
	}
	if dir != "" {
		out = append(out, filepath.Join(dir, "opencode", "plugins", path.Base(pluginRel)))
	}
	return out
}
