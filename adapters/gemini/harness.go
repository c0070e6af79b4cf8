package gemini

import (
	"path/filepath"
	"strings"

	"github.com/hook-loop/hook-loop/adapters/harness"
)

// Hooks is Gemini CLI for the hook path's registry; install.Harness adds
// install and doctor.
var Hooks harness.Hooks = geminiHooks{}

type geminiHooks struct{}

func (geminiHooks) Name() string                { return Name }
func (geminiHooks) NewAdapter() harness.Adapter { return New() }
func (geminiHooks) NativeEvents() []string      { return NativeEvents }

func (geminiHooks) Hook() harness.Hook {
	return harness.Hook{
		Usage:      "the command Gemini CLI runs for a hook event (reads the event JSON on stdin)",
		UsageText:  "hook-loop gemini-hook [--event EVENT] [--config FILE] [--event-log FILE] [--hooks-config FILE] [--record]",
		EventUsage: "Gemini CLI hook event name: " + strings.Join(NativeEvents, ", ") + " (default: the payload's hook_event_name)",
		Project:    hookProject,
	}
}

// hookProject prefers GEMINI_PROJECT_DIR, which Gemini CLI exports to every
// hook; a project neither gated nor named by --config is not gated
// (harness.ProjectFrom).
var hookProject = harness.ProjectFrom("GEMINI_PROJECT_DIR")

// OwnedPaths are the settings files install merges its hooks into (the
// project's and the user's) and the user's trusted-folders file, whose
// DO_NOT_TRUST for the project would switch every project hook off. Not the
// whole .gemini folder: it also holds the person's commands and skills.
func (geminiHooks) OwnedPaths(home string, getenv func(string) string) []string {
	out := []string{".gemini/settings.json"}
	if dir := UserDir(home, getenv); dir != "" {
		// Extensions declare hooks of their own (an AfterAgent answering
		// continue:false ends the session whatever hook-loop answers).
		out = append(out, filepath.Join(dir, "settings.json"), filepath.Join(dir, "trustedFolders.json"),
			filepath.Join(dir, "extensions")+string(filepath.Separator))
	}
	if getenv != nil {
		if p := getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH"); p != "" && filepath.IsAbs(p) {
			out = append(out, filepath.Clean(p))
		}
	}
	return out
}

// UserDir is Gemini CLI's per-user folder: $GEMINI_CLI_HOME/.gemini, else
// ~/.gemini ("" when there is no home).
func UserDir(home string, getenv func(string) string) string {
	if getenv != nil {
		if h := getenv("GEMINI_CLI_HOME"); h != "" {
			home = h
		}
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".gemini")
}
