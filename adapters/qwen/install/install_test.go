package install

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/adapters/qwen"
	"github.com/hook-loop/hook-loop/adapters/setup"
	"github.com/hook-loop/hook-loop/testkit/cmdrun"
	"github.com/tidwall/gjson"
)

// run runs `hook-loop qwen ARGS` in-process in dir, with home as HOME.
func run(t *testing.T, dir, home string, args ...string) string {
	t.Helper()
	return cmdrun.Run(t, Harness.NewCmd, dir, home, append([]string{"qwen"}, args...)...)
}

const theirs = `{
  "model": {"name": "qwen3-coder"},
  "hooks": {"PreToolUse": [{"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "./audit.sh"}]}]}
}`

// Install merges into .qwen/settings.json (project) and ~/.qwen/settings.json
// (user), keeping the person's settings and hooks; uninstall removes only
// hook-loop's.
func TestInstallMergesAndUninstallKeepsTheirs(t *testing.T) {
	for _, scope := range []string{"project", "user"} {
		t.Run(scope, func(t *testing.T) {
			dir, home := t.TempDir(), t.TempDir()
			// --scope user writes under the process's home.
			t.Setenv("HOME", home)
			file := filepath.Join(dir, ".qwen", "settings.json")
			if scope == "user" {
				file = filepath.Join(home, ".qwen", "settings.json")
			}
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, []byte(theirs), 0o644); err != nil {
				t.Fatal(err)
			}
			if out := run(t, dir, home, "install", "--scope", scope, "--profile", "plan_execute"); !strings.Contains(out, "would write "+file) {
				t.Fatalf("dry run:\n%s", out)
			}
			if b, _ := os.ReadFile(file); string(b) != theirs {
				t.Fatal("a dry run wrote")
			}
			run(t, dir, home, "install", "--scope", scope, "--profile", "plan_execute", "--write")
			b, _ := os.ReadFile(file)
			if gjson.GetBytes(b, "model.name").String() != "qwen3-coder" || gjson.GetBytes(b, "hooks.PreToolUse.0.hooks.0.command").String() != "./audit.sh" {
				t.Errorf("the person's settings changed:\n%s", b)
			}
			for _, ev := range qwen.NativeEvents {
				groups := gjson.GetBytes(b, "hooks."+ev).Array()
				last := groups[len(groups)-1]
				cmd := last.Get("hooks.0.command").String()
				if !strings.Contains(cmd, "qwen-hook --event "+ev) || last.Get("matcher").Exists() || last.Get("hooks.0.timeout").Int() != 30 {
					t.Errorf("%s: %s", ev, last.Raw)
				}
				if scope == "project" && !strings.Contains(cmd, `--config "$QWEN_PROJECT_DIR"/hook-loop.json`) {
					t.Errorf("%s: project command %q does not name the loop relative to $QWEN_PROJECT_DIR", ev, cmd)
				}
			}
			if gjson.GetBytes(b, "hooks.PostCompact").Exists() {
				t.Error("PostCompact registered: Qwen Code 0.24 has no such event")
			}
			run(t, dir, home, "uninstall", "--scope", scope, "--write")
			b, _ = os.ReadFile(file)
			if strings.Contains(string(b), "qwen-hook") || gjson.GetBytes(b, "hooks.PreToolUse.0.hooks.0.command").String() != "./audit.sh" {
				t.Errorf("after uninstall:\n%s", b)
			}
		})
	}
}

func TestDoctorChecksFolderTrust(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	run(t, dir, home, "install", "--profile", "plan_execute", "--write")
	env := &setup.DoctorEnv{Dir: dir, Home: home}
	text := func() string {
		var b bytes.Buffer
		setup.PrintFindings(&b, setup.Named("qwen", Harness.Doctor(env)))
		return b.String()
	}
	if got := text(); !strings.Contains(got, "has hook-loop hooks for all 10 events") || strings.Contains(got, "folder trust") {
		t.Errorf("doctor after install:\n%s", got)
	}
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(home, ".qwen", name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(home, ".qwen"), 0o755); err != nil {
		t.Fatal(err)
	}
	write("settings.json", `{"security":{"folderTrust":{"enabled":true}},"disableAllHooks":true}`)
	got := text()
	if !strings.Contains(got, "is not in ~/.qwen/trustedFolders.json") || !strings.Contains(got, "sets disableAllHooks: Qwen Code runs no hook") {
		t.Errorf("doctor with folder trust on and hooks disabled:\n%s", got)
	}
	write("trustedFolders.json", `{"`+filepath.Dir(dir)+`": "TRUST_FOLDER"}`)
	if got := text(); !strings.Contains(got, "folder trust is on and "+dir+" is trusted") {
		t.Errorf("doctor with a trusted parent:\n%s", got)
	}
	// The folder's own DO_NOT_TRUST wins over its trusted parent: Qwen Code
	// skips the hooks, and doctor must not say otherwise.
	write("trustedFolders.json", `{"`+filepath.Dir(dir)+`": "TRUST_FOLDER", "`+dir+`": "DO_NOT_TRUST"}`)
	if got := text(); !strings.Contains(got, "is not in ~/.qwen/trustedFolders.json") {
		t.Errorf("doctor with the folder distrusted inside a trusted parent:\n%s", got)
	}
}
