package pi

import (
	"fmt"
	"path/filepath"

	"github.com/hook-loop/hook-loop/adapters/harness"
)

// Hooks is the pi coding agent for the hook path's registry; install.Harness
// adds install and doctor.
var Hooks harness.Hooks = piHooks{}

type piHooks struct{}

func (piHooks) Name() string                { return "pi" }
func (piHooks) NewAdapter() harness.Adapter { return New() }
func (piHooks) NativeEvents() []string      { return NativeEvents }

func (piHooks) Hook() harness.Hook {
	return harness.Hook{
		Usage: "the command the hook-loop pi extension runs for a pi event (reads the event JSON on stdin)",
		Description: "Prints one JSON answer for the extension: " +
			`{"action":"allow|block|steer","reason":...,"context":...,"stopBlocks":N,"maxStopBlocks":M}; ` +
			"exit 0 lets pi proceed, exit 2 refuses.",
		UsageText:  "hook-loop pi-hook --event EVENT [--config FILE] [--event-log FILE] [--hooks-config FILE] [--record]",
		EventUsage: "pi event name: session_start, input, tool_call, tool_result, message_end, session_shutdown (default: the payload's event)",
	}
}

// OwnedPaths are the project's extension folder, the one in the user's
// agent directory ($PI_CODING_AGENT_DIR, else ~/.pi/agent; pi loads every
// extension in both), and the settings files whose "extensions" and
// "packages" lists load extensions from anywhere: each would run code of the
// agent's in pi, where no hook sees it.
func (piHooks) OwnedPaths(home string, getenv func(string) string) []string {
	out := []string{".pi/extensions/", ".pi/settings.json"}
	if dir, err := PiAgentDir(home, getenv); err == nil {
		out = append(out, filepath.Join(dir, "extensions")+string(filepath.Separator), filepath.Join(dir, "settings.json"))
	}
	return out
}

// ExtensionFile is the file name install writes.
const ExtensionFile = "hook_loop.ts"

// PiAgentDir is pi's per-user folder: $PI_CODING_AGENT_DIR, else ~/.pi/agent.
func PiAgentDir(home string, getenv func(string) string) (string, error) {
	if getenv != nil {
		if d := getenv("PI_CODING_AGENT_DIR"); d != "" {
			return filepath.Abs(d)
		}
	}
	if home == "" {
		return "", fmt.Errorf("--scope user: no home directory (set HOME)")
	}
	return filepath.Join(home, ".pi", "agent"), nil
}
