package pi

import (
	"fmt"
	"os"
	"path/filepath"

	loopdsl "github.com/hook-loop/hook-loop/loop/dsl"

	"github.com/hook-loop/hook-loop/adapters/harness"

	"github.com/hook-loop/hook-loop/internal/project"
)

const piReinstall = "hook-loop pi install --write"

// checkInstall reports whether pi will load hook-loop's extension in env.Dir and
// whether that extension can work: the file is hook-loop's, its binary runs, its
// loop file loads. pi loads project extensions without a trust prompt, so there
// is no trust to check, only the files.
func checkInstall(env *harness.DoctorEnv) []harness.Finding {
	var out []harness.Finding
	add := func(l harness.Level, what, fix string) {
		out = append(out, harness.Finding{Level: l, What: what, Fix: fix})
	}
	home := env.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	projectExt, _ := extensionPath(scopeProject, env.Dir, "")
	candidates := []string{projectExt}
	if agentDir, err := PiAgentDir(home, os.Getenv); err == nil {
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
			add(harness.LevelWarn, path+" exists but was not written by hook-loop", "move it away, then run "+piReinstall)
			continue
		}
		found++
		binary, config, eventLog, ok := extensionSettings(data)
		if !ok {
			add(harness.LevelFail, path+" is a hook-loop extension whose settings cannot be read (edited by hand?)", piReinstall)
			continue
		}
		add(harness.LevelOK, "pi loads "+path+" (no trust prompt: it runs whenever pi starts here)", "")
		switch st, err := os.Stat(binary); {
		case err != nil:
			add(harness.LevelFail, fmt.Sprintf("%s calls %s, which does not exist: every event fails open", path, binary), piReinstall+" (from the hook-loop you want pi to use)")
		case st.IsDir() || st.Mode().Perm()&0o111 == 0:
			add(harness.LevelFail, fmt.Sprintf("%s calls %s, which is not an executable file", path, binary), piReinstall)
		}
		if config == "" {
			// user scope without --dsl: each project's own hook-loop.json
			config = project.ConfigPath(project.Root(env.Dir))
			if _, err := os.Stat(config); err != nil {
				// The extension skips this project: a harness skipping
				// hook-loop is a failure, not a warning.
				add(harness.LevelFail, fmt.Sprintf("%s looks for a hook-loop.json upwards from pi's cwd; there is none for %s, so pi is not gated here", path, env.Dir), "hook-loop init (writes hook-loop.json here)")
				continue
			}
		}
		if _, _, err := loopdsl.Load(config); err != nil {
			add(harness.LevelFail, fmt.Sprintf("%s uses %s, which does not load: %v", path, config, err), "fix the loop (hook-loop validate "+config+")")
		} else {
			add(harness.LevelOK, "the loop "+config+" loads", "")
		}
		if eventLog != "" || config != "" {
			// pi has no write sandbox of its own.
			out = append(out, harness.StateFinding([]string{"--event-log", eventLog}, env.Dir, "", "hook-loop pi install"))
		}
		if eventLog != "" {
			if _, err := os.Stat(filepath.Dir(filepath.Dir(eventLog))); err != nil {
				add(harness.LevelWarn, fmt.Sprintf("%s logs to %s, whose project folder is gone", path, eventLog), piReinstall)
			}
		}
	}
	if found == 0 {
		add(harness.LevelWarn, fmt.Sprintf("hook-loop is not installed for pi (no %s in %s)", extensionFile, filepath.Join(env.Dir, ".pi", "extensions")), piReinstall)
	}
	return out
}
