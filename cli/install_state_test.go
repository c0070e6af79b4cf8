package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/project"
)

// TestInstallStateUser: install --state user writes an event log under the
// user's state directory into every harness's hooks, and refuses it where
// one install serves every project.
func TestInstallStateUser(t *testing.T) {
	for _, c := range []struct {
		harness, file string
		args          []string
	}{
		{"claude", ".claude/settings.json", []string{"claude", "install"}},
		{"codex", ".codex/hooks.json", []string{"codex", "install"}},
		{"opencode", ".opencode/plugins/hook_loop.js", []string{"opencode", "install"}},
		{"pi", ".pi/extensions/hook_loop.ts", []string{"pi", "install"}},
	} {
		t.Run(c.harness, func(t *testing.T) {
			w := newToyWorld(t)
			state := t.TempDir()
			env := map[string]string{"HOOK_LOOP_STATE_DIR": state}
			f, out, errOut := w.factory("")
			f.Getenv = func(k string) string { return env[k] }
			code := Run(f, w.hs, append(append([]string{"hook-loop"}, c.args...), "--state", "user", "--dry-run"))
			logPath := project.UserLogPath(w.dir, f.Getenv)
			if !strings.HasPrefix(logPath, state+string(filepath.Separator)+"projects"+string(filepath.Separator)) {
				t.Fatalf("user log path %s is not under %s/projects", logPath, state)
			}
			// A settings file the team commits (Claude Code's) says --state user
			// and never one person's path; the others name the log.
			want := logPath
			if c.harness == "claude" {
				want = "--state user"
				if strings.Contains(out.String(), logPath) {
					t.Errorf("the committed settings name this user's log %s:\n%s", logPath, out)
				}
			}
			if code != 0 || !strings.Contains(out.String(), want) {
				t.Fatalf("dry run: exit %d, want %s in\n%s%s", code, want, out, errOut)
			}
			if strings.Contains(out.String(), filepath.Join(w.dir, ".hook-loop")) {
				t.Errorf("--state user still names the project's .hook-loop:\n%s", out)
			}
			out.Reset()
			if code := Run(f, w.hs, append(append([]string{"hook-loop"}, c.args...), "--state", "elsewhere")); code != 2 || !strings.Contains(errOut.String(), `--state "elsewhere": expected project or user`) {
				t.Errorf("--state elsewhere: exit %d %s", code, errOut)
			}
		})
	}
	// User-wide hooks keep each project's log in the user's state folder: they
	// pass --state user and find the project from where they run.
	w := newToyWorld(t)
	for _, args := range [][]string{{"claude", "install", "--scope", "user"}, {"pi", "install", "--scope", "user"}} {
		code, out, errOut := w.run(t, "", append(args, "--state", "user")...)
		if code != 0 || !strings.Contains(out, "--state user") && !strings.Contains(out, `"--state=" + STATE`) {
			t.Errorf("%q --state user: exit %d, want hooks passing --state user in\n%s%s", args, code, out, errOut)
		}
	}
}

// TestDoctorSaysWhereStateLives: after install --state user, doctor names the
// user's state folder and says no sandbox covers it, for every harness whose
// doctor reads the installed hooks without the harness binary.
func TestDoctorSaysWhereStateLives(t *testing.T) {
	for _, h := range []string{"claude", "opencode", "pi"} {
		w := newToyWorld(t)
		env := map[string]string{"HOOK_LOOP_STATE_DIR": t.TempDir()}
		// doctor reads --state user from the hook command as the hook will: with
		// the process's environment.
		t.Setenv("HOOK_LOOP_STATE_DIR", env["HOOK_LOOP_STATE_DIR"])
		f, out, errOut := w.factory("")
		f.Getenv = func(k string) string { return env[k] }
		if code := Run(f, w.hs, []string{"hook-loop", h, "install", "--state", "user", "--write"}); code != 0 {
			t.Fatalf("%s install: %d %s%s", h, code, out, errOut)
		}
		out.Reset()
		Run(f, w.hs, []string{"hook-loop", "doctor", "--harness", h})
		state := filepath.Dir(project.UserLogPath(w.dir, f.Getenv))
		if want := "state (the event log) lives in " + state + ", outside the workspace"; !strings.Contains(out.String(), want) {
			t.Errorf("%s doctor:\n%s\nwant %q", h, out, want)
		}
	}
}
