package pi

import (
	"path/filepath"

	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/adapters/setup"
	"github.com/hook-loop/hook-loop/internal/cmdutil"
	"github.com/urfave/cli/v2"
)

// Harness is the pi coding agent for the registry.
var Harness setup.Harness = piHarness{}

type piHarness struct{}

func (piHarness) Name() string                                { return "pi" }
func (piHarness) NewAdapter() harness.Adapter                 { return New() }
func (piHarness) NativeEvents() []string                      { return NativeEvents }
func (piHarness) NewCmd(f *cmdutil.Factory) *cli.Command      { return NewCmd(f) }
func (piHarness) Doctor(env *setup.DoctorEnv) []setup.Finding { return checkInstall(env) }

func (piHarness) Hook() harness.Hook {
	return harness.Hook{
		Usage: "the command the hook-loop pi extension runs for a pi event (reads the event JSON on stdin)",
		Description: "Prints one JSON answer for the extension: " +
			`{"action":"allow|block|steer","reason":...,"context":...,"stopBlocks":N,"maxStopBlocks":M}; ` +
			"exit 0 lets pi proceed, exit 2 refuses.",
		UsageText:  "hook-loop pi-hook --event EVENT [--config FILE] [--event-log FILE] [--hooks-config FILE] [--record]",
		EventUsage: "pi event name: session_start, input, tool_call, tool_result, message_end, session_shutdown (default: the payload's event)",
	}
}

// OwnedPaths are the project's extension folder and the extension in the
// user's agent directory ($PI_CODING_AGENT_DIR, else ~/.pi/agent).
func (piHarness) OwnedPaths(home string, getenv func(string) string) []string {
	out := []string{".pi/extensions/"}
	if dir, err := PiAgentDir(home, getenv); err == nil {
		out = append(out, filepath.Join(dir, "extensions", extensionFile))
	}
	return out
}
