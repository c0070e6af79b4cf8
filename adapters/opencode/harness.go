package opencode

import (
	"path"
	"path/filepath"

	"github.com/hook-loop/hook-loop/adapters/harness"
)

// Hooks is opencode for the hook path's registry; install.Harness adds
// install and doctor.
var Hooks harness.Hooks = opencodeHooks{}

type opencodeHooks struct{}

func (opencodeHooks) Name() string                { return "opencode" }
func (opencodeHooks) NewAdapter() harness.Adapter { return New() }
func (opencodeHooks) NativeEvents() []string      { return NativeEvents }

// PluginRel is where install writes the plugin, relative to the project.
// opencode loads every .js/.ts file of .opencode/plugins/ at start.
const PluginRel = ".opencode/plugins/hook_loop.js"

func (opencodeHooks) Hook() harness.Hook {
	return harness.Hook{
		Usage:      "the command the opencode plugin runs for an event (reads the event JSON on stdin, answers one JSON line)",
		UsageText:  "hook-loop opencode-hook --event EVENT --config FILE --event-log FILE [--hooks-config FILE] [--record]",
		EventUsage: "opencode hook or event name, e.g. tool.execute.before (default: the payload's \"hook\")",
	}
}

// OwnedPaths are the project's plugin folder, opencode's global plugin
// folder ($XDG_CONFIG_HOME/opencode/plugins: install writes only the first,
// but a plugin put in the second runs in every project), and the config
// files whose "plugin" list loads a plugin from any folder (the project's
// opencode.json(c), its .opencode/opencode.json(c), the global one): each
// would run code of the agent's in opencode, where no hook sees it.
func (opencodeHooks) OwnedPaths(home string, getenv func(string) string) []string {
	out := []string{path.Dir(PluginRel) + "/", "opencode.json", "opencode.jsonc", ".opencode/opencode.json", ".opencode/opencode.jsonc"}
	dir := ""
	if getenv != nil {
		dir = getenv("XDG_CONFIG_HOME")
	}
	if dir == "" && home != "" {
		dir = filepath.Join(home, ".config")
	}
	if dir != "" {
		dir = filepath.Join(dir, "opencode")
		out = append(out, filepath.Join(dir, "plugins")+string(filepath.Separator),
			filepath.Join(dir, "opencode.json"), filepath.Join(dir, "opencode.jsonc"), filepath.Join(dir, "config.json"))
	}
	return out
}
