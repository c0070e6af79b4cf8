package install

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/hook-loop/hook-loop/adapters/gemini"
	"github.com/hook-loop/hook-loop/loop"
	loopdsl "github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/scaffold/settingshooks"
	"github.com/tidwall/gjson"
)

// Gemini CLI settings scopes.
const (
	scopeProject = "project" // <project>/.gemini/settings.json
	scopeUser    = "user"    // ~/.gemini/settings.json, every project
)

// Scopes lists the scopes, most specific first.
var Scopes = []string{scopeProject, scopeUser}

// projectDirVar is what Gemini CLI substitutes in a hook command (with the
// workspace directory, already shell-quoted) and exports to the hook.
// Written unquoted: quoting it would quote the quotes Gemini CLI adds.
const projectDirVar = "$GEMINI_PROJECT_DIR"

// hookTimeoutMS is the hook's timeout in Gemini CLI's unit, milliseconds:
// longer than hook-loop's own deadline (hook.DefaultDeadline, 25 s), so
// Gemini CLI never kills hook-loop mid-append; a killed hook would let the
// agent through (a timed-out hook is a failed hook, which Gemini CLI ignores).
const hookTimeoutMS = 30000

// SettingsPath returns the settings file of scope.
func SettingsPath(scope, projectDir, home string, getenv func(string) string) (string, error) {
	switch scope {
	case scopeProject, "":
		return filepath.Join(projectDir, ".gemini", "settings.json"), nil
	case scopeUser:
		dir := gemini.UserDir(home, getenv)
		if dir == "" {
			return "", fmt.Errorf("--scope user: no home directory (set HOME)")
		}
		return filepath.Join(dir, "settings.json"), nil
	}
	return "", fmt.Errorf("--scope %q: expected one of %s", scope, strings.Join(Scopes, ", "))
}

// installHooks describes the hook entries hook-loop installs.
type installHooks struct {
	settingshooks.Hook
	// Matcher is the tool events' matcher ("*" = every tool).
	Matcher string
}

// pathArg renders path for a hook command: relative to $GEMINI_PROJECT_DIR
// when it lies inside projectDir (the file stays valid in every checkout),
// else absolute; always shell-quoted.
func pathArg(path, projectDir string) string {
	return settingshooks.PathArg(path, projectDir, projectDirVar)
}

// isHookCommand reports whether a hook command is one of hook-loop's: it runs
// the gemini-hook subcommand. Re-install and uninstall touch only these.
func isHookCommand(cmd string) bool { return settingshooks.RunsSubcommand(cmd, "gemini-hook") }

// protectTools are Gemini CLI's tools the loop's guardrails must see whatever
// the DSL names: those that write files or run commands, and those that read
// files, to which hook-loop's keys and pinned loops are refused.
// Gemini CLI 0.61 calls its grep tool grep_search; earlier releases called
// it search_file_content.
var protectTools = []string{"glob", "grep_search", "list_directory", "read_file", "read_many_files", "replace", "run_shell_command", "search_file_content", "write_file"}

// nativeTools maps the canonical tool names a DSL uses to Gemini CLI's.
var nativeTools = map[string]string{"Bash": "run_shell_command", "Write": "write_file", "Edit": "replace", "Read": "read_file"}

// toolMatcher returns the smallest tool matcher (a regular expression over
// Gemini CLI's tool names) that shows the loop every tool call it can act
// on: the tools its rules and policies name plus the tools that write, or "*"
// when a rule or policy needs every tool.
func toolMatcher(spec *loopdsl.Spec) string {
	if spec == nil {
		return "*"
	}
	tools := slices.Clone(protectTools)
	add := func(t string) {
		if n, ok := nativeTools[t]; ok {
			t = n
		}
		tools = append(tools, t)
	}
	for _, r := range spec.EventMap {
		switch r.CodexEvent {
		case loop.EventPreToolUse, loop.EventPermissionRequest, loop.EventPostToolUse:
			if r.When.ToolName == "" {
				return "*"
			}
			add(r.When.ToolName)
		}
	}
	for _, p := range spec.Definition.Policies {
		if len(p.AllowTools) > 0 {
			return "*"
		}
		for _, t := range p.DenyTools {
			add(t)
		}
	}
	for _, t := range tools {
		if strings.ContainsAny(t, `*.^$()[]{}?+\| `) {
			return "*"
		}
	}
	sort.Strings(tools)
	// Every MCP tool (Gemini CLI names them mcp_<server>_<tool>): what it
	// changes is unknown.
	return "^(" + strings.Join(slices.Compact(tools), "|") + "|mcp_.*)$"
}

// mergeSettings returns existing (a settings.json document, or empty) with
// hook-loop's hook entries for every handled event, keeping every other
// setting and hook, and replacing hook-loop's own entries from an earlier
// install.
func mergeSettings(existing []byte, h installHooks) ([]byte, error) {
	return settingshooks.Merge(existing, settingshooks.Spec{Events: gemini.NativeEvents, IsToolEvent: gemini.IsToolEvent,
		Matcher: h.Matcher, Command: h.Command, Timeout: hookTimeoutMS, Ours: isHookCommand})
}

// removeSettings removes hook-loop's hook entries from a settings document;
// it returns the document and how many entries it removed.
func removeSettings(existing []byte) ([]byte, int, error) {
	return settingshooks.Remove(existing, isHookCommand)
}

// hookCommands returns hook-loop's hook commands in a settings document,
// keyed by event.
func hookCommands(doc []byte) map[string][]string { return settingshooks.Commands(doc, isHookCommand) }

// hooksDisabled reports whether a settings document turns the hook system
// off (hooksConfig.enabled: false).
func hooksDisabled(doc []byte) bool {
	v := gjson.GetBytes(doc, "hooksConfig.enabled")
	return v.Exists() && v.Type == gjson.False
}

// disabledCommands are hook-loop's commands a settings document lists in
// hooksConfig.disabled, which Gemini CLI then skips.
func disabledCommands(doc []byte) []string {
	var out []string
	gjson.GetBytes(doc, "hooksConfig.disabled").ForEach(func(_, v gjson.Result) bool {
		if isHookCommand(v.String()) {
			out = append(out, v.String())
		}
		return true
	})
	return out
}
