package install

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/adapters/copilot"
	"github.com/hook-loop/hook-loop/adapters/setup"
	"github.com/hook-loop/hook-loop/testkit/cmdrun"
	"github.com/tidwall/gjson"
)

// run runs `hook-loop copilot ARGS` in-process in dir, with home as HOME.
func run(t *testing.T, dir, home string, args ...string) string {
	t.Helper()
	return cmdrun.Run(t, Harness.NewCmd, dir, home, append([]string{"copilot"}, args...)...)
}

const theirs = `{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "./audit.sh", "timeoutSec": 5}]}}`

func TestInstallDryRunThenWriteThenUninstall(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	hooksDir := filepath.Join(dir, ".github", "hooks")
	if err := os.MkdirAll(hooksDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(hooksDir, "audit.json"), []byte(theirs), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(hooksDir, FileName)
	out := run(t, dir, home, "install", "--profile", "plan_execute")
	if _, err := os.Stat(file); err == nil || !strings.Contains(out, "would write") {
		t.Fatalf("a dry run wrote %s:\n%s", file, out)
	}
	run(t, dir, home, "install", "--profile", "plan_execute", "--write")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	cmds := commands(b)
	if len(cmds) != len(copilot.NativeEvents) || gjson.GetBytes(b, "version").Int() != 1 {
		t.Fatalf("hook file:\n%s", b)
	}
	stop := cmds[copilot.EventAgentStop][0]
	// The hook file is the team's: it names no one's own log path.
	if strings.Contains(stop, "--event-log") {
		t.Errorf("agentStop command %q names a log path", stop)
	}
	for _, want := range []string{"copilot-hook --event agentStop", `--config "$COPILOT_PROJECT_DIR"/hook-loop.json`, "--state user"} {
		if !strings.Contains(stop, want) {
			t.Errorf("agentStop command %q lacks %q", stop, want)
		}
	}
	if gjson.GetBytes(b, "hooks.agentStop.0.timeoutSec").Int() != 30 {
		t.Errorf("timeoutSec: %s", b)
	}
	// A second install changes nothing.
	if out := run(t, dir, home, "install", "--write"); !strings.Contains(out, "unchanged "+file) {
		t.Errorf("re-install:\n%s", out)
	}
	run(t, dir, home, "uninstall", "--write")
	if _, err := os.Stat(file); err == nil {
		t.Errorf("uninstall left %s (it held only hook-loop's hooks)", file)
	}
	if b, _ := os.ReadFile(filepath.Join(hooksDir, "audit.json")); string(b) != theirs {
		t.Errorf("the person's hook file changed: %s", b)
	}
}

// Hooks the person put into hook-loop's own file survive install and uninstall.
func TestMergeKeepsOtherHooks(t *testing.T) {
	h := hooks{Binary: "/opt/hook loop/hook-loop"}
	merged, err := merge([]byte(theirs), h)
	if err != nil {
		t.Fatal(err)
	}
	pre := gjson.GetBytes(merged, "hooks.preToolUse").Array()
	if len(pre) != 2 || pre[0].Get("bash").String() != "./audit.sh" || !isOurs(pre[1]) {
		t.Fatalf("preToolUse: %s", gjson.GetBytes(merged, "hooks.preToolUse").Raw)
	}
	if !strings.HasPrefix(pre[1].Get("bash").String(), `'/opt/hook loop/hook-loop' copilot-hook`) {
		t.Errorf("the binary is not quoted: %s", pre[1].Raw)
	}
	again, err := merge(merged, h)
	if err != nil || !bytes.Equal(again, merged) {
		t.Errorf("merge is not idempotent:\n%s\n%s", merged, again)
	}
	left, n, err := strip(merged)
	if err != nil || n != len(copilot.NativeEvents) || !keepsMore(left) {
		t.Fatalf("strip: %d removed, %v:\n%s", n, err, left)
	}
	if got := gjson.GetBytes(left, "hooks.preToolUse.#").Int(); got != 1 || len(commands(left)) != 0 {
		t.Errorf("after strip:\n%s", left)
	}
	for _, bad := range []string{`[]`, `{"hooks": []}`, `{"hooks": {"agentStop": {}}}`, `{`} {
		if _, err := merge([]byte(bad), h); err == nil {
			t.Errorf("merge(%s) accepted", bad)
		}
	}
}

func TestUserScopeFollowsCopilotHome(t *testing.T) {
	got, err := HookFile("user", "/p", "/home/u", func(k string) string {
		if k == "COPILOT_HOME" {
			return "/cfg"
		}
		return ""
	})
	if err != nil || got != "/cfg/hooks/hook-loop.json" {
		t.Errorf("user hook file %q, %v", got, err)
	}
	if got, _ := HookFile("user", "/p", "/home/u", nil); got != "/home/u/.copilot/hooks/hook-loop.json" {
		t.Errorf("user hook file %q", got)
	}
	if _, err := HookFile("local", "/p", "/home/u", nil); err == nil {
		t.Error("--scope local accepted")
	}
}

func TestDoctorFindsDisabledHooksAndMissingEvents(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	run(t, dir, home, "install", "--profile", "plan_execute", "--write")
	env := &setup.DoctorEnv{Dir: dir, Home: home}
	text := func() string {
		var b bytes.Buffer
		setup.PrintFindings(&b, setup.Named("copilot", checkInstall(env)))
		return b.String()
	}
	if got := text(); !strings.Contains(got, "has hook-loop hooks for all 8 events") || !strings.Contains(got, "not among Copilot CLI's trustedFolders") {
		t.Errorf("doctor after install:\n%s", got)
	}
	if err := os.WriteFile(filepath.Join(dir, ".github", "hooks", "off.json"), []byte(`{"version":1,"disableAllHooks":true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, ".copilot"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".copilot", "settings.json"), []byte(`{"trustedFolders":["`+dir+`"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	got := text()
	if !strings.Contains(got, "off.json sets disableAllHooks") || !strings.Contains(got, "is a trusted folder for Copilot CLI") {
		t.Errorf("doctor with disableAllHooks and trust:\n%s", got)
	}
}

// uninstall --purge --write also removes the loop file, as the shared
// uninstall's "add --purge to remove it" says.
func TestUninstallPurge(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	run(t, dir, home, "install", "--profile", "plan_execute", "--write")
	loopFile := filepath.Join(dir, "hook-loop.json")
	if _, err := os.Stat(loopFile); err != nil {
		t.Fatalf("install wrote no loop file: %v", err)
	}
	out := run(t, dir, home, "uninstall", "--purge", "--write")
	if _, err := os.Stat(loopFile); err == nil {
		t.Errorf("uninstall --purge left %s:\n%s", loopFile, out)
	}
	if _, err := os.Stat(filepath.Join(dir, ".github", "hooks", FileName)); err == nil {
		t.Errorf("uninstall --purge left the hook file:\n%s", out)
	}
}
