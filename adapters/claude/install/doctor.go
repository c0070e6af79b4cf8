package install

import (
	"fmt"
	"os"
	"strings"

	"github.com/hook-loop/hook-loop/adapters/setup"
	loopdsl "github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/guard/shell"
	"github.com/hook-loop/hook-loop/scaffold"
	"github.com/hook-loop/hook-loop/scaffold/settingshooks"
	"github.com/tidwall/gjson"
)

// CheckInstall reports whether the harness will run hook-loop's hooks in env.Dir:
// a settings file with hook-loop's entries for every event, hooks not disabled
// by disableAllHooks, the binary present and executable, the loop file valid,
// and no double installation (two scopes would run each hook twice).
func (fl *Flavor) CheckInstall(env *setup.DoctorEnv) []setup.Finding {
	var out setup.Findings
	home := env.UserHome()
	var layers []setup.SettingsLayer
	var disabled bool
	for _, scope := range fl.Scopes() {
		if scope == scopeUser && home == "" {
			continue
		}
		path, err := fl.SettingsPath(scope, env.Dir, home)
		if err != nil {
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		if _, _, err := fl.removeSettings(b); err != nil {
			out.Add(setup.LevelFail, fmt.Sprintf("%s is not a valid settings file: %v", path, err), "fix the JSON; "+fl.Product+" ignores a settings file it cannot parse")
			continue
		}
		if hooksDisabled(b) {
			disabled = true
			out.Add(setup.LevelFail, fmt.Sprintf("%s sets disableAllHooks: %s runs no hook at all", path, fl.Product),
				fmt.Sprintf("remove \"disableAllHooks\" from %s", path))
		}
		if cmds := fl.hookCommands(b); len(cmds) > 0 {
			layers = append(layers, setup.SettingsLayer{Scope: scope, Path: path, Cmds: cmds})
			fl.checkMatchers(&out, path, b)
		}
	}
	if len(layers) == 0 {
		out.Add(setup.LevelWarn, fmt.Sprintf("hook-loop is not installed for %s (no %s-hook command in %s's %s/settings*.json or ~/%[4]s/settings.json)", fl.Product, fl.Name, env.Dir, fl.Dir), fl.reinstall())
		return out
	}
	if !disabled {
		out.Add(setup.LevelOK, "hooks are not disabled (no disableAllHooks)", "")
	}
	sandbox := ""
	if fl.Sandbox != nil {
		sandbox = fl.Sandbox(env.Dir, home)
	}
	out = append(out, setup.StateFinding(shell.Words(fl.expandProjectDir(setup.AnyCommand(layers[0].Cmds), env.Dir)),
		env.Dir, sandbox, "hook-loop "+fl.Name+" install"))
	commands := setup.CommandChecks{Dir: env.Dir, Reinstall: fl.reinstall(), Harness: fl.Product,
		Expand: func(c string) string { return fl.expandProjectDir(c, env.Dir) }}
	setup.CheckLayers(&out, layers, fl.Product, fl.Name, fl.Events, &commands)
	if fl.Doctor != nil {
		fl.Doctor(env, &out)
	}
	return out
}

// expandProjectDir substitutes the project directory the harness exports
// to hooks, so the doctor reads paths the way the hook will.
func (fl *Flavor) expandProjectDir(cmd, dir string) string {
	q := scaffold.ShellQuote(dir)
	v := fl.ProjectDirVar
	for _, form := range []string{`"$` + v + `"`, `"${` + v + `}"`, `${` + v + `}`, `$` + v} {
		cmd = strings.ReplaceAll(cmd, form, q)
	}
	return cmd
}

// claudeSandbox names Claude Code's sandbox when it runs Bash in it here.
func claudeSandbox(dir, home string) string {
	if sandboxEnabled(dir, home) {
		return "Claude Code sandbox.enabled"
	}
	return ""
}

// sandboxEnabled reports whether Claude Code runs Bash in its sandbox here:
// sandbox.enabled in the most specific settings file that sets it (local,
// then project, then user).
func sandboxEnabled(dir, home string) bool {
	for _, scope := range []string{scopeLocal, scopeProject, scopeUser} {
		path, err := (&Flavor{Dir: ".claude", Local: true}).SettingsPath(scope, dir, home)
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

// checkMatchers: an older install's tool matcher may leave out a tool every
// install now shows hook-loop (setup.CheckMatchers).
func (fl *Flavor) checkMatchers(out *setup.Findings, path string, doc []byte) {
	if fl.Matcher == nil || fl.IsToolEvent == nil {
		return
	}
	setup.CheckMatchers(out, path, doc, fl.isHookCommand, fl.IsToolEvent, settingshooks.Names(fl.Matcher(&loopdsl.Spec{Definition: &loopdsl.Definition{}})), fl.reinstall())
}
