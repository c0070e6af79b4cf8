package install

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hook-loop/hook-loop/adapters/copilot"
	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/adapters/setup"
	"github.com/hook-loop/hook-loop/cli/cmdutil"
	"github.com/hook-loop/hook-loop/loop/guard/shell"
	"github.com/hook-loop/hook-loop/scaffold"
	"github.com/tidwall/gjson"
	"github.com/urfave/cli/v2"
)

// Harness is GitHub Copilot CLI for the registry.
var Harness setup.Harness = copilotHarness{copilot.Hooks}

type copilotHarness struct{ harness.Hooks }

func (copilotHarness) NewCmd(f *cmdutil.Factory) *cli.Command      { return NewCmd(f) }
func (copilotHarness) Doctor(env *setup.DoctorEnv) []setup.Finding { return checkInstall(env) }

// TestedVersion is the Copilot CLI release the end-to-end test drives.
const TestedVersion = "1.0.102"

const reinstall = "hook-loop copilot install --write"

// checkInstall reports whether Copilot CLI will run hook-loop's hooks in
// env.Dir: a hook file with an entry for every event, no disableAllHooks in
// any file Copilot reads hooks from, the binary and loop file sound, one
// installation only, the folder trusted, the version the one proven.
func checkInstall(env *setup.DoctorEnv) []setup.Finding {
	var out setup.Findings
	home := env.UserHome()
	type layer struct {
		scope, path string
		cmds        map[string][]string
	}
	var layers []layer
	for _, scope := range []string{scopeProject, scopeUser} {
		path, err := HookFile(scope, env.Dir, home, os.Getenv)
		if err != nil {
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		if _, err := parse(b); err != nil {
			out.Add(setup.LevelFail, fmt.Sprintf("%s is not a valid hook file: %v", path, err), "fix the JSON; Copilot CLI skips a hook file it cannot parse")
			continue
		}
		if cmds := commands(b); len(cmds) > 0 {
			layers = append(layers, layer{scope, path, cmds})
		}
	}
	if len(layers) == 0 {
		out.Add(setup.LevelWarn, fmt.Sprintf("hook-loop is not installed for Copilot CLI (no copilot-hook command in %s/.github/hooks/%s or the user's hooks folder)", env.Dir, FileName), reinstall)
		return out
	}
	disabled := disabledIn(env.Dir, home)
	for _, p := range disabled {
		out.Add(setup.LevelFail, fmt.Sprintf("%s sets disableAllHooks: Copilot CLI runs no hook from it", p), fmt.Sprintf("remove \"disableAllHooks\" from %s", p))
	}
	if len(disabled) == 0 {
		out.Add(setup.LevelOK, "hooks are not disabled (no disableAllHooks)", "")
	}
	if len(layers) > 1 {
		out.Add(setup.LevelWarn, fmt.Sprintf("hook-loop hooks are installed in %s and %s: Copilot CLI runs both, so each event reaches hook-loop twice", layers[0].path, layers[1].path),
			"keep one: hook-loop copilot uninstall --write --scope SCOPE")
	}
	expand := func(c string) string {
		return strings.ReplaceAll(c, `"$`+copilot.ProjectDirVar+`"`, scaffold.ShellQuote(env.Dir))
	}
	out = append(out, setup.StateFinding(shell.Words(expand(setup.AnyCommand(layers[0].cmds))), env.Dir, "", "hook-loop copilot install"))
	checks := setup.CommandChecks{Dir: env.Dir, Reinstall: reinstall, Harness: "Copilot CLI", Expand: expand}
	for _, l := range layers {
		out.CheckEvents(l.path, l.cmds, copilot.NativeEvents, reinstall+" --scope "+l.scope)
		checks.Check(&out, l.path, l.cmds)
	}
	out = append(out, trust(env.Dir, home))
	out = append(out, setup.CheckVersion(env.Ctx, "copilot", TestedVersion, "Copilot CLI"))
	return out
}

// disabledIn lists the files Copilot CLI reads hooks from that set
// disableAllHooks: the hook files of both folders and the user's settings.
func disabledIn(dir, home string) []string {
	var files []string
	for _, d := range []string{filepath.Join(dir, ".github", "hooks"), copilot.UserHooksDir(home, os.Getenv)} {
		if d == "" {
			continue
		}
		m, _ := filepath.Glob(filepath.Join(d, "*.json"))
		files = append(files, m...)
	}
	if d := copilot.UserHooksDir(home, os.Getenv); d != "" {
		files = append(files, filepath.Join(filepath.Dir(d), "settings.json"))
	}
	var out []string
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && gjson.GetBytes(b, "disableAllHooks").Bool() {
			out = append(out, f)
		}
	}
	return out
}

// trust reports whether the user's settings list dir among trustedFolders.
// An untrusted folder makes Copilot CLI ask before it works there; `copilot
// -p` runs need --trust-folder (or COPILOT_ALLOW_ALL) instead.
func trust(dir, home string) setup.Finding {
	d := copilot.UserHooksDir(home, os.Getenv)
	if d != "" {
		b, _ := os.ReadFile(filepath.Join(filepath.Dir(d), "settings.json"))
		for _, f := range gjson.GetBytes(b, "trustedFolders").Array() {
			if p := f.String(); p == dir || strings.HasPrefix(dir, p+string(filepath.Separator)) {
				return setup.Finding{Level: setup.LevelOK, What: dir + " is a trusted folder for Copilot CLI"}
			}
		}
	}
	return setup.Finding{Level: setup.LevelWarn,
		What: dir + " is not among Copilot CLI's trustedFolders: it asks before working here, and a prompt-mode run (-p) needs --trust-folder",
		Fix:  "trust the folder when Copilot CLI asks, or run copilot -p with --trust-folder"}
}
