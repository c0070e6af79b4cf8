package install

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hook-loop/hook-loop/adapters/setup"
	"github.com/hook-loop/hook-loop/loop/guard/shell"
)

const codexReinstall = "hook-loop codex install --write --trust"

// checkInstall reports whether Codex will really run hook-loop's hooks in env.Dir:
// hooks.json entries present, binary and loop file usable, hooks enabled, the
// project trusted, and every hook's hash trusted (through codex app-server when
// codex is available).
func checkInstall(env *setup.DoctorEnv) []setup.Finding {
	var out setup.Findings
	home, err := CodexHome(env.CodexHome)
	if err != nil {
		out.Add(setup.LevelFail, err.Error(), "set CODEX_HOME or give --codex-home")
		return out
	}
	projectHooks := filepath.Join(env.Dir, ".codex", "hooks.json")
	userHooks := filepath.Join(home, "hooks.json")
	var layers []codexLayer
	for _, l := range []codexLayer{{path: projectHooks, project: true}, {path: userHooks}} {
		b, err := os.ReadFile(l.path)
		if err != nil {
			continue
		}
		if _, _, err := RemoveCodexHooks(b); err != nil {
			out.Add(setup.LevelFail, fmt.Sprintf("%s is not a valid hooks file: %v", l.path, err), "fix the JSON, then run "+codexReinstall)
			continue
		}
		l.cmds = hookCommands(b)
		if len(l.cmds) > 0 {
			layers = append(layers, l)
		}
	}
	if len(layers) == 0 {
		out.Add(setup.LevelWarn, fmt.Sprintf("hook-loop is not installed for Codex (no codex-hook command in %s or %s)", projectHooks, userHooks), codexReinstall)
		return out
	}
	cfg, cfgErr := readCodexConfig(home)
	_, homeErr := os.Stat(home)
	_, cfgFileErr := os.Stat(filepath.Join(home, "config.toml"))
	if homeErr != nil && cfgErr == nil {
		// Nothing to read is no proof of anything: Codex has not run as this
		// user (or CODEX_HOME points elsewhere), so no project is trusted yet.
		out.Add(setup.LevelWarn, fmt.Sprintf("Codex's home %s does not exist: Codex has not run as this user here (or CODEX_HOME names another directory), so it trusts no project yet", home),
			"run codex once, then "+codexReinstall+" (or give --codex-home)")
	} else if cfgErr != nil {
		out.Add(setup.LevelFail, cfgErr.Error(), "fix the TOML syntax of "+filepath.Join(home, "config.toml"))
	} else if cfg.HooksDisabled != "" {
		out.Add(setup.LevelFail, fmt.Sprintf("hooks are disabled in %s (%s): Codex runs no hook", cfg.Path, cfg.HooksDisabled),
			fmt.Sprintf("remove that line from %s (or set it to true)", cfg.Path))
	} else if cfgFileErr != nil {
		out.Add(setup.LevelOK, "hooks are on: Codex's default, and there is no "+cfg.Path+" to turn them off", "")
	} else {
		out.Add(setup.LevelOK, "hooks are enabled in "+cfg.Path, "")
	}

	out = append(out, setup.StateFinding(shell.Words(setup.AnyCommand(layers[0].cmds)), env.Dir,
		sandboxCovers(SandboxMode(env.Dir, home)), "hook-loop codex install"))

	commands := setup.CommandChecks{Dir: env.Dir, Reinstall: codexReinstall, Harness: "Codex", WarnRelative: true}
	for _, l := range layers {
		out.Add(setup.LevelOK, fmt.Sprintf("%s has hook-loop hooks for %s", l.path, strings.Join(setup.Events(l.cmds), ", ")), "")
		commands.Check(&out, l.path, l.cmds)
		if l.project && cfgErr == nil {
			if cfg.ProjectTrusted(env.Dir) {
				out.Add(setup.LevelOK, "the project "+env.Dir+" is trusted", "")
			} else {
				out.Add(setup.LevelFail, fmt.Sprintf("the project %s is not trusted in %s: Codex ignores %s", env.Dir, cfg.Path, l.path),
					codexReinstall+" (or run codex exec --trust once)")
			}
		}
	}
	var paths []string
	for _, l := range layers {
		paths = append(paths, l.path)
	}
	out = append(out, checkCodexHashes(env, home, paths)...)
	return out
}

// codexLayer is one hooks.json that holds hook-loop hooks.
type codexLayer struct {
	path    string
	project bool
	cmds    map[string][]string
}

// checkCodexHashes asks codex app-server for the trust state of each of
// hook-loop's handlers: an untrusted or modified hook is skipped silently.
func checkCodexHashes(env *setup.DoctorEnv, home string, hooksPaths []string) []setup.Finding {
	var out []setup.Finding
	bin, err := findCodex(env.CodexBin)
	if err != nil {
		return []setup.Finding{{Level: setup.LevelWarn, What: "cannot check whether Codex trusts the hooks: " + err.Error(),
			Fix: "put codex on PATH (or give --codex-bin) and run hook-loop doctor again"}}
	}
	ctx := env.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	srv, err := startAppServer(ctx, bin, home)
	if err != nil {
		return []setup.Finding{{Level: setup.LevelWarn, What: "cannot check hook trust: " + err.Error(), Fix: "check that " + bin + " runs"}}
	}
	defer srv.Close()
	hooks, notes, err := srv.ListHooks(ctx, env.Dir)
	if err != nil {
		return []setup.Finding{{Level: setup.LevelWarn, What: "cannot check hook trust: " + err.Error(), Fix: "check that " + bin + " runs"}}
	}
	for _, n := range notes {
		out = append(out, setup.Finding{Level: setup.LevelWarn, What: "codex reports: " + n})
	}
	for _, p := range hooksPaths {
		mine := ours(hooks, p)
		if len(mine) == 0 {
			out = append(out, setup.Finding{Level: setup.LevelFail, What: fmt.Sprintf("codex does not load the hooks in %s for %s", p, env.Dir),
				Fix: codexReinstall + " (trusts the project so Codex loads its .codex/hooks.json)"})
			continue
		}
		var bad []string
		for _, h := range mine {
			if h.TrustStatus != "trusted" {
				bad = append(bad, fmt.Sprintf("%s is %s", h.Key, h.TrustStatus))
			}
			if !h.Enabled {
				bad = append(bad, h.Key+" is disabled")
			}
		}
		if len(bad) > 0 {
			out = append(out, setup.Finding{Level: setup.LevelFail,
				What: fmt.Sprintf("Codex silently skips %d of hook-loop's %d hooks in %s: %s", len(bad), len(mine), p, strings.Join(bad, "; ")),
				Fix:  codexReinstall + " (trusts exactly hook-loop's current hook hashes)"})
		} else {
			out = append(out, setup.Finding{Level: setup.LevelOK, What: fmt.Sprintf("codex trusts all %d hook-loop hooks in %s", len(mine), p)})
		}
	}
	return out
}
