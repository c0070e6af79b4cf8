package install

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/hook-loop/hook-loop/adapters/claude"
	"github.com/hook-loop/hook-loop/adapters/setup"
	"github.com/hook-loop/hook-loop/loop"
	loopdsl "github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/scaffold"
	"github.com/hook-loop/hook-loop/scaffold/settingshooks"
	"github.com/tidwall/gjson"
)

// Settings scopes.
const (
	scopeProject = "project" // <project>/.claude/settings.json, shared with the team
	scopeLocal   = "local"   // <project>/.claude/settings.local.json, this checkout only
	scopeUser    = "user"    // ~/.claude/settings.json, every project
)

// Flavor is what differs between Claude Code's settings files and those of a
// harness that reads hooks in Claude Code's shape (Qwen Code's
// .qwen/settings.json): where they are, the hook command's name, the variable
// the harness exports with the project directory, its events. Install,
// uninstall and doctor are the same code for every flavor.
type Flavor struct {
	// Name is the harness's short name: `hook-loop NAME install` writes
	// NAME-hook commands. Product is its name for people.
	Name, Product string
	// Dir is the settings folder in the project and in home (".claude").
	Dir string
	// Local: the harness also reads Dir/settings.local.json (the local scope).
	Local bool
	// ProjectDirVar is the variable the harness exports to every hook with the
	// project directory; project-scope commands name paths relative to it.
	ProjectDirVar string
	// Events are the native events install registers, in lifecycle order;
	// IsToolEvent says which take a tool matcher.
	Events      []string
	IsToolEvent func(string) bool
	// Matcher is the tool matcher for a loop; nil matches every tool.
	Matcher func(*loopdsl.Spec) string
	// Sandbox names the harness's sandbox when it runs shell commands in one
	// in dir ("" none), for doctor's state check; nil: none.
	Sandbox func(dir, home string) string
	// Doctor adds the harness's own checks (trust, version); nil: none.
	Doctor func(env *setup.DoctorEnv, out *setup.Findings)
}

// Claude is Claude Code.
var Claude = &Flavor{Name: "claude", Product: "Claude Code", Dir: ".claude", Local: true,
	ProjectDirVar: "CLAUDE_PROJECT_DIR", Events: claude.NativeEvents, IsToolEvent: claude.IsToolEvent,
	Matcher: toolMatcher, Sandbox: claudeSandbox}

// Scopes lists the flavor's scopes in the order Claude Code's docs give them.
func (fl *Flavor) Scopes() []string {
	if fl.Local {
		return []string{scopeProject, scopeLocal, scopeUser}
	}
	return []string{scopeProject, scopeUser}
}

// projectDirVar is the project directory variable as commands write it.
func (fl *Flavor) projectDirVar() string { return `"$` + fl.ProjectDirVar + `"` }

// reinstall is doctor's fix: the install command.
func (fl *Flavor) reinstall() string { return "hook-loop " + fl.Name + " install --write" }

// claudeHookTimeout (seconds) is longer than hookrun's own deadline, so Claude
// Code never kills hook-loop mid-append; hook-loop answers first.
const claudeHookTimeout = 30

// SettingsPath returns the settings file of scope.
func (fl *Flavor) SettingsPath(scope, projectDir, home string) (string, error) {
	switch {
	case scope == scopeProject || scope == "":
		return filepath.Join(projectDir, fl.Dir, "settings.json"), nil
	case scope == scopeLocal && fl.Local:
		return filepath.Join(projectDir, fl.Dir, "settings.local.json"), nil
	case scope == scopeUser:
		if home == "" {
			return "", fmt.Errorf("--scope user: no home directory (set HOME)")
		}
		return filepath.Join(home, fl.Dir, "settings.json"), nil
	}
	return "", fmt.Errorf("--scope %q: expected one of %s", scope, strings.Join(fl.Scopes(), ", "))
}

// installHooks describes the hook entries hook-loop installs.
type installHooks struct {
	// Binary is the absolute path of the hook-loop executable.
	Binary string
	// Config and Log are the --config and --event-log arguments, already in
	// shell form (see pathArg); "" leaves the flag out so that hook-loop
	// finds them from the project root.
	Config string
	Log    string
	// Matcher is the tool matcher of the tool events ("*" = every tool).
	Matcher string
	// Record makes every hook also keep its raw input in .hook-loop/trace.jsonl,
	// for hook-loop replay.
	Record bool
	// Store is cmdutil.StoreArg's " --store URL" (URL without its password), or "".
	Store string
	// Mode is the install's --mode, passed to every hook ("": the loop's).
	Mode string
	// State is "user" when user-wide hooks keep each project's log in the
	// user's state directory, else "".
	State string
	// Flavor is the harness (nil: Claude Code).
	Flavor *Flavor
}

func (h installHooks) flavor() *Flavor {
	if h.Flavor == nil {
		return Claude
	}
	return h.Flavor
}

// pathArg renders path for a hook command: relative to the project
// directory variable ($CLAUDE_PROJECT_DIR) when it lies inside projectDir and

// pathArg renders path for a hook command: relative to the project
// directory variable ($CLAUDE_PROJECT_DIR) when it lies inside projectDir and
// relToProject is set, else absolute; always shell-quoted (paths may hold
// spaces).
func (fl *Flavor) pathArg(path, projectDir string, relToProject bool) string {
	if !relToProject {
		return scaffold.ShellQuote(path)
	}
	return settingshooks.PathArg(path, projectDir, fl.projectDirVar())
}

// Command returns the hook command for a native event.
func (h installHooks) Command(event string) string {
	return settingshooks.Hook{Binary: h.Binary, Subcommand: h.flavor().Name + "-hook", Config: h.Config, Log: h.Log,
		Record: h.Record, Store: h.Store, Mode: h.Mode, State: h.State}.Command(event)
}

// isHookCommand reports whether a settings.json hook command is one of
// hook-loop's: it runs the <name>-hook subcommand. Re-install and uninstall
// touch only these.
func (fl *Flavor) isHookCommand(cmd string) bool {
	return settingshooks.RunsSubcommand(cmd, fl.Name+"-hook")
}

// claudeProtectTools are the tools the loop's guardrails must see whatever
// the DSL names: those that write files or run commands (Monitor runs a
// shell command as Bash does, PowerShell a PowerShell one), and those that
// read files, to which hook-loop's keys and pinned loops are refused.
var claudeProtectTools = []string{"Bash", "Edit", "Glob", "Grep", "LS", "Monitor", "MultiEdit", "NotebookEdit", "PowerShell", "Read", "Write"}

// toolMatcher returns the smallest tool matcher that shows the loop every tool
// call it can act on: the tools its rules and policies name plus the tools that
// write (for the guardrails), or "*" when a rule or policy needs every tool
// (a tool rule without tool_name, a state policy with allow_tools).
func toolMatcher(spec *loopdsl.Spec) string {
	if spec == nil {
		return "*"
	}
	tools := slices.Clone(claudeProtectTools)
	for _, r := range spec.EventMap {
		switch r.CodexEvent {
		case loop.EventPreToolUse, loop.EventPermissionRequest, loop.EventPostToolUse:
			if r.When.ToolName == "" {
				return "*"
			}
			tools = append(tools, r.When.ToolName)
		}
	}
	for _, p := range spec.Definition.Policies {
		if len(p.AllowTools) > 0 {
			return "*"
		}
		tools = append(tools, p.DenyTools...)
	}
	for _, t := range tools {
		// A name Claude would read as a regex could match more or less than
		// meant; every tool is the safe answer.
		if strings.ContainsAny(t, `*.^$()[]{}?+\ `) {
			return "*"
		}
	}
	sort.Strings(tools)
	// Every MCP tool: its path arguments are judged like any write.
	return strings.Join(append(slices.Compact(tools), "mcp__.*"), "|")
}

// mergeSettings returns existing (a settings document, or empty) with
// hook-loop's hook entries for every handled event, keeping every other setting
// and every other hook, and replacing hook-loop's own entries from an earlier
// install.
func mergeSettings(existing []byte, h installHooks) ([]byte, error) {
	fl := h.flavor()
	isTool := fl.IsToolEvent
	if h.Matcher == "" {
		isTool = nil // no matcher at all: a flavor without one (Qwen Code) reads that as every tool
	}
	return settingshooks.Merge(existing, settingshooks.Spec{Events: fl.Events, IsToolEvent: isTool,
		Matcher: h.Matcher, Command: h.Command, Timeout: claudeHookTimeout, Ours: fl.isHookCommand})
}

// removeSettings removes hook-loop's hook entries from a settings document;
// it returns the document and how many entries it removed.
func (fl *Flavor) removeSettings(existing []byte) ([]byte, int, error) {
	return settingshooks.Remove(existing, fl.isHookCommand)
}

// hookCommands returns hook-loop's hook commands in a settings document,
// keyed by event.
func (fl *Flavor) hookCommands(doc []byte) map[string][]string {
	return settingshooks.Commands(doc, fl.isHookCommand)
}

// hooksDisabled reports whether a settings document turns every hook off.
func hooksDisabled(doc []byte) bool {
	return gjson.GetBytes(doc, "disableAllHooks").Bool()
}
