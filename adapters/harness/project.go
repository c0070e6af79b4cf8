package harness

import (
	"io"

	"github.com/hook-loop/hook-loop/project"
)

// ProjectFrom is Hook.Project for a harness that exports the project
// directory to every hook in the variable envVar (CLAUDE_PROJECT_DIR,
// QWEN_PROJECT_DIR, COPILOT_PROJECT_DIR), so a hook started elsewhere still
// finds the project. Without --config (a user-scope install serves every
// project) a project with neither a loop file nor a log is not gated: the
// harness proceeds and the person is not told on every event that a loop is
// missing. A project with a log was gated: deleting its loop file must not
// ungate it, so hook-loop runs there and judges by the pinned loop (or
// refuses, saying how to restore or uninstall).
func ProjectFrom(envVar string) func(in io.Reader, getenv func(string) string, configPath, cwd string) (string, bool) {
	return func(in io.Reader, getenv func(string) string, configPath, cwd string) (string, bool) {
		if d := getenv(envVar); d != "" && configPath == "" {
			cwd = d
		}
		if configPath == "" && !project.Gated(project.Root(cwd)) {
			io.Copy(io.Discard, in) //nolint:errcheck // drain stdin so the harness never sees a broken pipe
			return cwd, false
		}
		return cwd, true
	}
}
