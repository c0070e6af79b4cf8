package install

import (
	"fmt"
	"os"
	"strings"

	"github.com/hook-loop/hook-loop/adapters/claude"
	"github.com/hook-loop/hook-loop/adapters/setup"
	"github.com/hook-loop/hook-loop/loop/guard/shell"
	"github.com/hook-loop/hook-loop/scaffold"
	"github.com/tidwall/gjson"
)

const claudeReinstall = "hook-loop claude install --write"

// checkInstall reports whether Claude Code will run hook-loop's hooks in env.Dir:
// a settings file with hook-loop's entries for every event, hooks not disabled
// by disableAllHooks, the binary present and executable, the loop file valid,
// and no double installation (two scopes would run each hook twice).
func checkInstall(env *setup.DoctorEnv) []setup.Finding {
	var out setup.Findings
	home := env.UserHome()
	var layers []setup.SettingsLayer
	var disabled bool
	for _, scope := range ClaudeScopes {
		if scope == scopeUser && home == "" {
			continue
		}
		path, err := ClaudeSettingsPath(scope, env.Dir, home)
		if err != nil {
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		if _, _, err := removeSettings(b); err != nil {
			out.Add(setup.LevelFail, fmt.Sprintf("%s is not a valid settings file: %v", path, err), "fix the JSON; Claude Code ignores a settings file it cannot parse")
			continue
		}
		if hooksDisabled(b) {
			disabled = true
			out.Add(setup.LevelFail, fmt.Sprintf("%s sets disableAllHooks: Claude Code runs no hook at all", path),
				fmt.Sprintf("remove \"disableAllHooks\" from %s", path))
		}
		if cmds := hookCommands(b); len(cmds) > 0 {
			layers = append(layers, setup.SettingsLayer{Scope: scope, Path: path, Cmds: cmds})
		}
	}
	if len(layers) == 0 {
		out.Add(setup.LevelWarn, fmt.Sprintf("hook-loop is not installed for Claude Code (no claude-hook command in %s's .claude/settings*.json or ~/.claude/settings.json)", env.Dir), claudeReinstall)
		return out
	}
	if !disabled {
		out.Add(setup.LevelOK, "hooks are not disabled (no disableAllHooks)", "")
	}
	sandbox := ""
	if sandboxEnabled(env.Dir, home) {
		sandbox = "Claude Code sandbox.enabled"
	}
	out = append(out, setup.StateFinding(shell.Words(expandClaudeProjectDir(setup.AnyCommand(layers[0].Cmds), env.Dir)),
		env.Dir, sandbox, "hook-loop claude install"))
	commands := setup.CommandChecks{Dir: env.Dir, Reinstall: claudeReinstall, Harness: "Claude Code",
		Expand: func(c string) string { return expandClaudeProjectDir(c, env.Dir) }}
	setup.CheckLayers(&out, layers, "Claude Code", "claude", claude.NativeEvents, &commands)
	return out
}

// expandClaudeProjectDir substitutes the project directory Claude Code exports
// to hooks, so the doctor reads paths the way the hook will.
func expandClaudeProjectDir(cmd, dir string) string {
	q := scaffold.ShellQuote(dir)
	for _, form := range []string{`"$CLAUDE_PROJECT_DIR"`, `"${CLAUDE_PROJECT_DIR}"`, `${CLAUDE_PROJECT_DIR}`, `$CLAUDE_PROJECT_DIR`} {
		cmd = strings.ReplaceAll(cmd, form, q)
	}
	return cmd
}

// sandboxEnabled reports whether Claude Code runs Bash in its sandbox here:
// sandbox.enabled in the most specific settings file that sets it (local,
// then project, then user).
func sandboxEnabled(dir, home string) bool {
	for _, scope := range []string{scopeLocal, scopeProject, scopeUser} {
		path, err := ClaudeSettingsPath(scope, dir, home)
		if err != nil {
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		if v := gjson.GetBytes(b, "sandbox.enabled"); v.Exists() {
			return v.Bool()
		}
	}
	return false
}
