package harness

import "io"

// Hooks is what the hook path needs of a harness: its name, a fresh adapter,
// the events it decodes, the <name>-hook command's spec and the files its
// install owns, which the engine protects. Each harness package
// (adapters/codex, adapters/claude, ...) exports one value implementing it;
// adapters/registry/hooks lists them. The install and doctor side is
// setup.Harness, in adapters/setup, which embeds this.
type Hooks interface {
	// Name is the short name: the <name>-hook and <name> install commands,
	// doctor's --harness value, and HookEvent.Harness.
	Name() string
	// NewAdapter returns a fresh adapter for one hook invocation.
	NewAdapter() Adapter
	// NativeEvents are the harness's own event names the adapter decodes.
	NativeEvents() []string
	// Hook describes the <name>-hook command.
	Hook() Hook
	// OwnedPaths are the files hook-loop writes into the harness's
	// configuration, which the agent may not write: relative to the project
	// root, or absolute under home (the user's, following the harness's own
	// variables through getenv). A trailing "/" is a folder: everything under
	// it is owned, and so is moving it.
	OwnedPaths(home string, getenv func(string) string) []string
}

// Hook is what differs between the harnesses' *-hook commands.
type Hook struct {
	Usage, UsageText, Description string
	// EventUsage is the --event flag's usage.
	EventUsage string
	// Project may replace the directory the project is looked up from, or
	// report that this invocation is not gated at all (the harness proceeds
	// silently; Project then drains in). nil: the working directory, gated.
	Project func(in io.Reader, getenv func(string) string, configPath, cwd string) (dir string, gated bool)
}
