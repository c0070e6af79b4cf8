package install

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/hook-loop/hook-loop/adapters/pi"
	"github.com/hook-loop/hook-loop/adapters/setup"
	"github.com/hook-loop/hook-loop/project"
)

const piReinstall = "hook-loop pi install --write"

// checkInstall reports whether pi will load hook-loop's extension in env.Dir and
// whether that extension can work: the file is hook-loop's, its binary runs, its
// loop file loads. pi loads project extensions without a trust prompt, so there
// is no trust to check, only the files.
func checkInstall(env *setup.DoctorEnv) []setup.Finding {
	var out setup.Findings
	home := env.UserHome()
	projectExt, _ := extensionPath(scopeProject, env.Dir, "")
	candidates := []string{projectExt}
	if agentDir, err := pi.PiAgentDir(home, os.Getenv); err == nil {
		userExt, _ := extensionPath(scopeUser, "", agentDir)
		candidates = append(candidates, userExt)
	}
	found := 0
	for _, path := range candidates {
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		if !isExtension(data) {
			out.Add(setup.LevelWarn, path+" exists but was not written by hook-loop", "move it away, then run "+piReinstall)
			continue
		}
		found++
		binary, config, eventLog, ok := extensionSettings(data)
		if !ok {
			out.Add(setup.LevelFail, path+" is a hook-loop extension whose settings cannot be read (edited by hand?)", piReinstall)
			continue
		}
		out.Add(setup.LevelOK, "pi loads "+path+" (no trust prompt: it runs whenever pi starts here)", "")
		out = append(out, setup.CheckBinary(path, binary, piReinstall, "pi"))
		if config == "" {
			// user scope without --dsl: each project's own hook-loop.json
			config = project.ConfigPath(project.Root(env.Dir))
			if _, err := os.Stat(config); err != nil {
				// The extension skips this project: a harness skipping
				// hook-loop is a failure, not a warning.
				out.Add(setup.LevelFail, fmt.Sprintf("%s looks for a hook-loop.json upwards from pi's cwd; there is none for %s, so pi is not gated here", path, env.Dir), "hook-loop init (writes hook-loop.json here)")
				continue
			}
		}
		out = append(out, setup.CheckLoop(config))
		if eventLog != "" || config != "" {
			// pi has no write sandbox of its own.
			out = append(out, setup.StateFinding([]string{"--event-log", eventLog}, env.Dir, "", "hook-loop pi install"))
		}
		if eventLog != "" {
			if _, err := os.Stat(filepath.Dir(filepath.Dir(eventLog))); err != nil {
				out.Add(setup.LevelWarn, fmt.Sprintf("%s logs to %s, whose project folder is gone", path, eventLog), piReinstall)
			}
		}
	}
	if found == 0 {
		out.Add(setup.LevelWarn, fmt.Sprintf("hook-loop is not installed for pi (no %s in %s)", pi.ExtensionFile, filepath.Join(env.Dir, ".pi", "extensions")), piReinstall)
	}
	return out
}
