package install

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/hook-loop/hook-loop/adapters/claude"
	"github.com/hook-loop/hook-loop/loop"
	loopdsl "github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/scaffold"
	"github.com/hook-loop/hook-loop/scaffold/settingshooks"
	"github.com/tidwall/gjson"
)

// Claude Code settings scopes.
const (
	scopeProject = "project" // <project>/.claude/settings.json, shared with the team
	scopeLocal   = "local"   // <project>/.claude/settings.local.json, this checkout only
	scopeUser    = "user"    // ~/.claude/settings.json, every project
)

// ClaudeScopes lists the scopes in the order Claude Code's docs give them.
var ClaudeScopes = []string{scopeProject, scopeLocal, scopeUser}

// claudeProjectDirVar is what Claude Code exports to every hook: the project
// directory. Commands in project and local settings use it so the file stays
// valid in every checkout of the project.
const claudeProjectDirVar = `"$CLAUDE_PROJECT_DIR"`

// claudeHookTimeout (seconds) is longer than hookrun's own deadline, so Claude
// Code never kills hook-loop mid-append; hook-loop answers first.
const claudeHookTimeout = 30

// ClaudeSettingsPath returns the settings file of scope.
func ClaudeSettingsPath(scope, projectDir, home string) (string, error) {
	switch scope {
	case scopeProject, "":
		return filepath.Join(projectDir, ".claude", "settings.json"), nil
	case scopeLocal:
		return filepath.Join(projectDir, ".claude", "settings.local.json"), nil
	case scopeUser:
		if home == "" {
			return "", fmt.Errorf("--scope user: no home directory (set HOME)")
		}
		return filepath.Join(home, ".claude", "settings.json"), nil
	}
	return "", fmt.Errorf("--scope %q: expected one of %s", scope, strings.Join(ClaudeScopes, ", "))
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
}

// pathArg renders path for a hook command: relative to
// $CLAUDE_PROJECT_DIR when it lies inside projectDir and relToProject is set,
// else absolute; always shell-quoted (paths may hold spaces).
func pathArg(path, projectDir string, relToProject bool) string {
	if !relToProject {
		return scaffold.ShellQuote(path)
	}
	return settingshooks.PathArg(path, projectDir, claudeProjectDirVar)
}

// Command returns the hook command for a native Claude Code event.
func (h installHooks) Command(event string) string {
	return settingshooks.Hook{Binary: h.Binary, Subcommand: "claude-hook", Config: h.Config, Log: h.Log,
		Record: h.Record, Store: h.Store, Mode: h.Mode, State: h.State}.Command(event)
}

// isHookCommand reports whether a settings.json hook command is one of
// hook-loop's: it runs the claude-hook subcommand. Re-install and uninstall touch
// only these.
func isHookCommand(cmd string) bool { return settingshooks.RunsSubcommand(cmd, "claude-hook") }

// claudeProtectTools are the tools that write files or run commands: the loop's
// guardrails must see them whatever the DSL names.
var claudeProtectTools = []string{"Bash", "Edit", "MultiEdit", "NotebookEdit", "Write"}

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

// mergeSettings returns existing (a settings.json document, or empty) with
// hook-loop's hook entries for every handled event, keeping every other setting
// and every other hook, and replacing hook-loop's own entries from an earlier
// install.
func mergeSettings(existing []byte, h installHooks) ([]byte, error) {
	return settingshooks.Merge(existing, settingshooks.Spec{Events: claude.NativeEvents, IsToolEvent: claude.IsToolEvent,
		Matcher: h.Matcher, Command: h.Command, Timeout: claudeHookTimeout, Ours: isHookCommand})
}

// removeSettings removes hook-loop's hook entries from a settings.json
// document; it returns the document and how many entries it removed.
func removeSettings(existing []byte) ([]byte, int, error) {
	return settingshooks.Remove(existing, isHookCommand)
}

// hookCommands returns hook-loop's hook commands in a settings document,
// keyed by event.
func hookCommands(doc []byte) map[string][]string { return settingshooks.Commands(doc, isHookCommand) }

// hooksDisabled reports whether a settings document turns every hook off.
func hooksDisabled(doc []byte) bool {
	return gjson.GetBytes(doc, "disableAllHooks").Bool()
}

// writeSettings writes a settings document (see mergeSettings).
func writeSettings(path string, data []byte) error {
	if err := scaffold.WriteFileAtomic(path, data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
