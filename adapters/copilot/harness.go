package copilot

import (
	"path/filepath"

	"github.com/hook-loop/hook-loop/adapters/harness"
)

// Hooks is Copilot CLI for the hook path's registry; install.Harness adds
// install and doctor.
var Hooks harness.Hooks = copilotHooks{}

type copilotHooks struct{}

func (copilotHooks) Name() string                { return Name }
func (copilotHooks) NewAdapter() harness.Adapter { return New() }
func (copilotHooks) NativeEvents() []string      { return NativeEvents }

func (copilotHooks) Hook() harness.Hook {
	return harness.Hook{
		Usage:      "the command GitHub Copilot CLI runs for a hook event (reads the event JSON on stdin)",
		UsageText:  "hook-loop copilot-hook --event EVENT [--config FILE] [--event-log FILE] [--hooks-config FILE] [--record]",
		EventUsage: "Copilot CLI hook event name (sessionStart, preToolUse, agentStop, ...): its payloads do not name it",
		Project:    harness.ProjectFrom(ProjectDirVar),
	}
}

// UserHooksDir is where Copilot CLI reads the user's hook files:
// $COPILOT_HOME/hooks, else ~/.copilot/hooks ("" without either).
func UserHooksDir(home string, getenv func(string) string) string {
	if getenv != nil {
		if h := getenv("COPILOT_HOME"); h != "" {
			return filepath.Join(h, "hooks")
		}
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".copilot", "hooks")
}

// OwnedPaths are the folders Copilot CLI reads hook files from, the
// project's and the user's: every *.json in them is a hook file, so a file
// the agent adds there could answer for hook-loop. The user's settings.json
// holds hooks too.
func (copilotHooks) OwnedPaths(home string, getenv func(string) string) []string {
	out := []string{".github/hooks/"}
	if d := UserHooksDir(home, getenv); d != "" {
		out = append(out, d+string(filepath.Separator), filepath.Join(filepath.Dir(d), "settings.json"))
	}
	return out
}
