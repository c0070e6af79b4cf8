package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/adapters/setup"
)

const piTestLoop = `{"loop": {"id": "t", "initial_state": "a", "states": ["a", "done"], "terminal_states": ["done"],
 "events": ["go"], "transitions": [{"from": "a", "event": "go", "to": "done"}]},
 "codex": {"event_map": [{"codex_event": "Stop", "emit": "go"}]}}`

func findings(fs []setup.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(string(f.Level) + " " + f.What + "\n")
	}
	return b.String()
}

func TestCheckPi(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my proj")
	home := filepath.Join(t.TempDir(), "home")
	t.Setenv("PI_CODING_AGENT_DIR", "")
	env := &setup.DoctorEnv{Dir: dir, Home: home}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}

	got := findings(checkInstall(env))
	if !strings.Contains(got, "warn hook-loop is not installed for pi") {
		t.Errorf("nothing installed:\n%s", got)
	}

	config := filepath.Join(dir, "hook-loop.json")
	os.WriteFile(config, []byte(piTestLoop), 0o644)
	ext, _ := extensionPath(scopeProject, dir, "")
	plan, err := planInstall(ext, PiExtension{HookLoop: filepath.Join(dir, "no such hook-loop"), Config: config, EventLog: filepath.Join(dir, ".hook-loop", "events.jsonl")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := plan.Write(); err != nil {
		t.Fatal(err)
	}
	got = findings(checkInstall(env))
	for _, want := range []string{"ok pi loads " + ext, "fail " + ext + " runs " + filepath.Join(dir, "no such hook-loop") + ", which does not exist", "ok the loop file " + config + " is valid"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}

	os.WriteFile(config, []byte(`{"loop": 3}`), 0o644)
	if got = findings(checkInstall(env)); !strings.Contains(got, "fail the loop file "+config+" does not load") {
		t.Errorf("broken loop not reported:\n%s", got)
	}

	os.WriteFile(ext, []byte("export default function mine() {}\n"), 0o644)
	if got = findings(checkInstall(env)); !strings.Contains(got, "warn "+ext+" exists but was not written by hook-loop") {
		t.Errorf("foreign file not reported:\n%s", got)
	}
}

func TestPiExtensionSettingsRoundTrip(t *testing.T) {
	x := PiExtension{HookLoop: `/a b/"hook-loop"`, Config: `/p q/hook-loop.json`, EventLog: `/p q/.hook-loop/events.jsonl`}
	src, err := renderExtension(x)
	if err != nil {
		t.Fatal(err)
	}
	bin, cfg, log, ok := extensionSettings(src)
	if !ok || bin != x.HookLoop || cfg != x.Config || log != x.EventLog {
		t.Errorf("read back %q %q %q %v", bin, cfg, log, ok)
	}
}

// TestCheckPiUserScopeSkipsProject: a user-scope extension that finds no
// hook-loop.json for the project skips it, so doctor fails (exit 1), and its
// fix is a command that works.
func TestCheckPiUserScopeSkipsProject(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "proj")
	agentDir := filepath.Join(t.TempDir(), "agent")
	t.Setenv("PI_CODING_AGENT_DIR", agentDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ext, _ := extensionPath(scopeUser, "", agentDir)
	exe, _ := os.Executable()
	plan, err := planInstall(ext, PiExtension{HookLoop: exe}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := plan.Write(); err != nil {
		t.Fatal(err)
	}
	fs := checkInstall(&setup.DoctorEnv{Dir: dir, Home: t.TempDir()})
	for _, f := range fs {
		if strings.Contains(f.What, "so pi is not gated here") {
			if f.Level != setup.LevelFail || f.Fix != "hook-loop init (writes hook-loop.json here)" {
				t.Errorf("finding %+v, want a failure fixed by hook-loop init", f)
			}
			return
		}
	}
	t.Errorf("no finding for the skipped project:\n%s", findings(fs))
}
