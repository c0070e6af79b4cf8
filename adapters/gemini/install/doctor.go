package install

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hook-loop/hook-loop/adapters/gemini"
	"github.com/hook-loop/hook-loop/adapters/setup"
	loopdsl "github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/guard/shell"
	"github.com/hook-loop/hook-loop/scaffold"
	"github.com/hook-loop/hook-loop/scaffold/settingshooks"
	"github.com/tidwall/gjson"
)

const reinstall = "hook-loop gemini install --write"

// measured is the Gemini CLI version whose hook behaviour the adapter was
// built against (docs/gemini.md).
const measured = "0.61.0"

// checkInstall reports whether Gemini CLI will run hook-loop's hooks in
// env.Dir: a settings file with hook-loop's entries for every event, the hook
// system not switched off nor hook-loop's commands disabled, a project
// install's folder trusted, the binary and loop file sound, no double
// installation, and the gemini on PATH of a version hook-loop was measured
// with. getenv reads the environment (nil: the process's).
func checkInstall(env *setup.DoctorEnv, getenv func(string) string) []setup.Finding {
	if getenv == nil {
		getenv = os.Getenv
	}
	var out setup.Findings
	home := env.UserHome()
	var layers []setup.SettingsLayer
	disabled := false
	for _, scope := range Scopes {
		path, err := SettingsPath(scope, env.Dir, home, getenv)
		if err != nil {
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		if _, _, err := removeSettings(b); err != nil {
			out.Add(setup.LevelFail, fmt.Sprintf("%s is not a valid settings file: %v", path, err), "fix the JSON; Gemini CLI refuses to start with a settings file it cannot parse")
			continue
		}
		if hooksDisabled(b) {
			disabled = true
			out.Add(setup.LevelFail, fmt.Sprintf("%s sets hooksConfig.enabled: false: Gemini CLI runs no hook at all", path),
				fmt.Sprintf("remove \"hooksConfig.enabled\" from %s", path))
		}
		if d := disabledCommands(b); len(d) > 0 {
			disabled = true
			out.Add(setup.LevelFail, fmt.Sprintf("%s lists %d hook-loop command(s) in hooksConfig.disabled: Gemini CLI skips them", path, len(d)),
				fmt.Sprintf("remove them from hooksConfig.disabled in %s", path))
		}
		if cmds := hookCommands(b); len(cmds) > 0 {
			layers = append(layers, setup.SettingsLayer{Scope: scope, Path: path, Cmds: cmds})
			setup.CheckMatchers(&out, path, b, isHookCommand, gemini.IsToolEvent, settingshooks.Names(toolMatcher(&loopdsl.Spec{Definition: &loopdsl.Definition{}})), reinstall)
		}
	}
	if sys := systemSettings(getenv); sys != "" {
		if b, err := os.ReadFile(sys); err == nil && hooksDisabled(b) {
			disabled = true
			out.Add(setup.LevelFail, fmt.Sprintf("%s (system settings) sets hooksConfig.enabled: false: Gemini CLI runs no hook at all", sys), "ask the machine's administrator, or run Gemini CLI where hooks are allowed")
		}
	}
	if len(layers) == 0 {
		// Alone (setup.NotInstalled) when nothing else was found: doctor then
		// leaves out a harness nobody chose. A broken settings file or hooks
		// switched off are still reported: they break a later install too.
		out.Add(setup.LevelWarn, fmt.Sprintf("%sGemini CLI (no gemini-hook command in %s's .gemini/settings.json or the user's)", setup.NotInstalledPrefix, env.Dir), reinstall)
		return out
	}
	out = append(out, versionFinding(getenv))
	if !disabled {
		out.Add(setup.LevelOK, "hooks are enabled (no hooksConfig.enabled: false, none of hook-loop's disabled)", "")
	}
	for _, l := range layers {
		if l.Scope == scopeProject {
			out = append(out, trustFinding(env.Dir, home, getenv))
		}
	}
	out = append(out, setup.StateFinding(shell.Words(expandProjectDir(setup.AnyCommand(layers[0].Cmds), env.Dir)),
		env.Dir, "", "hook-loop gemini install"))
	commands := setup.CommandChecks{Dir: env.Dir, Reinstall: reinstall, Harness: "Gemini CLI",
		Expand: func(c string) string { return expandProjectDir(c, env.Dir) }}
	setup.CheckLayers(&out, layers, "Gemini CLI", "gemini", gemini.NativeEvents, &commands)
	return out
}

// expandProjectDir substitutes the project directory as Gemini CLI does in a
// hook command (shell-quoted), so the doctor reads paths the way the hook will.
func expandProjectDir(cmd, dir string) string {
	return strings.ReplaceAll(cmd, projectDirVar, scaffold.ShellQuote(dir))
}

// systemSettings is Gemini CLI's system settings file on this machine.
func systemSettings(getenv func(string) string) string {
	if p := getenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH"); p != "" {
		return p
	}
	return "/etc/gemini-cli/settings.json"
}

// trustFinding says whether Gemini CLI trusts dir, the condition for running
// a project's hooks (an untrusted folder's are skipped; `gemini -p` there
// exits 55 without running anything). Its order follows Gemini CLI's
// checkPathTrust: the environment, the folder-trust switch, the longest
// matching rule of trustedFolders.json.
func trustFinding(dir, home string, getenv func(string) string) setup.Finding {
	fix := "trust the folder: start gemini in it and accept, or add \"" + dir + "\": \"TRUST_FOLDER\" to " + trustedFoldersPath(home, getenv) + "; for headless runs GEMINI_CLI_TRUST_WORKSPACE=true"
	switch getenv("GEMINI_CLI_TRUST_WORKSPACE") {
	case "true":
		return setup.Finding{Level: setup.LevelOK, What: "GEMINI_CLI_TRUST_WORKSPACE=true: Gemini CLI trusts this folder in this environment (only there)"}
	case "false":
		return setup.Finding{Level: setup.LevelFail, What: "GEMINI_CLI_TRUST_WORKSPACE=false: Gemini CLI runs no project hook", Fix: "unset GEMINI_CLI_TRUST_WORKSPACE"}
	}
	if us := gemini.UserDir(home, getenv); us != "" {
		if b, err := os.ReadFile(filepath.Join(us, "settings.json")); err == nil {
			if v := gjson.GetBytes(b, "security.folderTrust.enabled"); v.Exists() && v.Type == gjson.False {
				return setup.Finding{Level: setup.LevelOK, What: "folder trust is off (security.folderTrust.enabled: false): Gemini CLI trusts every folder"}
			}
		}
	}
	path := trustedFoldersPath(home, getenv)
	b, err := os.ReadFile(path)
	if err != nil {
		return setup.Finding{Level: setup.LevelWarn, What: fmt.Sprintf("Gemini CLI does not trust %s yet (no %s): it skips the project's hooks until the folder is trusted", dir, path), Fix: fix}
	}
	var rules map[string]string
	if err := json.Unmarshal(b, &rules); err != nil {
		return setup.Finding{Level: setup.LevelFail, What: fmt.Sprintf("%s is not a JSON object of folder rules: Gemini CLI refuses to start", path), Fix: "fix or remove " + path}
	}
	level := setup.TrustRule(rules, dir)
	switch level {
	case "TRUST_FOLDER", "TRUST_PARENT":
		return setup.Finding{Level: setup.LevelOK, What: fmt.Sprintf("Gemini CLI trusts %s (%s in %s)", dir, level, path)}
	case "DO_NOT_TRUST":
		return setup.Finding{Level: setup.LevelFail, What: fmt.Sprintf("%s marks %s DO_NOT_TRUST: Gemini CLI runs none of the project's hooks", path, dir), Fix: fix}
	}
	return setup.Finding{Level: setup.LevelWarn, What: fmt.Sprintf("Gemini CLI does not trust %s yet (no rule in %s): it skips the project's hooks until the folder is trusted", dir, path), Fix: fix}
}

func trustedFoldersPath(home string, getenv func(string) string) string {
	if p := getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH"); p != "" {
		return p
	}
	return filepath.Join(gemini.UserDir(home, getenv), "trustedFolders.json")
}

// versionFinding reports the gemini on PATH: its version from the package
// beside the script npm links (running `gemini --version` takes seconds).
func versionFinding(getenv func(string) string) setup.Finding {
	bin, err := lookPath("gemini", getenv("PATH"))
	if err != nil {
		return setup.Finding{Level: setup.LevelWarn, What: "gemini is not on PATH: cannot tell which Gemini CLI will run the hooks",
			Fix: "npm install -g @google/gemini-cli@" + measured}
	}
	v := packageVersion(bin)
	switch {
	case v == "":
		return setup.Finding{Level: setup.LevelWarn, What: fmt.Sprintf("cannot read the version of %s (hook-loop was measured with Gemini CLI %s)", bin, measured)}
	case olderThan(v, measured):
		return setup.Finding{Level: setup.LevelWarn, What: fmt.Sprintf("%s is Gemini CLI %s, older than %s, the version hook-loop's answers were measured with", bin, v, measured),
			Fix: "npm install -g @google/gemini-cli@" + measured}
	}
	return setup.Finding{Level: setup.LevelOK, What: fmt.Sprintf("%s is Gemini CLI %s (measured with %s)", bin, v, measured)}
}

// lookPath finds name on path (the PATH the checks were given).
func lookPath(name, path string) (string, error) {
	for _, d := range filepath.SplitList(path) {
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return exec.LookPath(name)
}

// packageVersion is the version in the package.json above the script bin
// resolves to (npm links bin/gemini to @google/gemini-cli/bundle/gemini.js).
func packageVersion(bin string) string {
	real, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return ""
	}
	for d := filepath.Dir(real); d != filepath.Dir(d); d = filepath.Dir(d) {
		b, err := os.ReadFile(filepath.Join(d, "package.json"))
		if err != nil {
			continue
		}
		if gjson.GetBytes(b, "name").String() == "@google/gemini-cli" {
			return gjson.GetBytes(b, "version").String()
		}
		return ""
	}
	return ""
}

// olderThan compares dotted versions numerically (a pre-release suffix is
// ignored).
func olderThan(v, than string) bool {
	a, b := strings.Split(v, "."), strings.Split(than, ".")
	for i := 0; i < len(b); i++ {
		x, y := 0, 0
		if i < len(a) {
			x, _ = strconv.Atoi(strings.SplitN(a[i], "-", 2)[0])
		}
		y, _ = strconv.Atoi(b[i])
		if x != y {
			return x < y
		}
	}
	return false
}
