package scaffold

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/version"
)

func TestHookBinaryPicksTheLeanOneOnlyWhenItAnswersAlone(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "hook-loop")
	lean := filepath.Join(dir, LeanName)
	writeLean := func(build string, mode os.FileMode) {
		t.Helper()
		script := "#!/bin/sh\n[ \"$1\" = --build ] && printf '%s\\n' '" + strings.ReplaceAll(build, "'", "") + "'\n"
		if err := os.WriteFile(lean, []byte(script), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(lean, mode); err != nil {
			t.Fatal(err)
		}
	}
	cfg := t.TempDir()
	env := map[string]string{"XDG_CONFIG_HOME": cfg}
	getenv := func(k string) string { return env[k] }
	check := func(name, store, wantBin, wantWhy string) {
		t.Helper()
		bin, isLean, why := HookBinary(full, store, getenv)
		if bin != wantBin || isLean != (wantBin == lean) || !strings.Contains(why, wantWhy) || (wantWhy == "" && why != "") {
			t.Errorf("%s: %q lean=%v why=%q, want %q why ~%q", name, bin, isLean, why, wantBin, wantWhy)
		}
	}
	check("no lean binary", "", full, "")
	writeLean(version.Build(), 0o644)
	check("not executable", "", full, "")
	writeLean(version.Build(), 0o755)
	check("same build", "", lean, "")
	check("a database store", "postgres://db/x", full, "database")
	env["HOOK_LOOP_STORE"] = "postgres://db/x"
	check("$HOOK_LOOP_STORE", "", full, "database")
	delete(env, "HOOK_LOOP_STORE")
	if err := os.MkdirAll(filepath.Join(cfg, "hook-loop"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "hook-loop", "config.json"), []byte(`{"hooks": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	check("a user config", "", full, "config.json")
	if err := os.Remove(filepath.Join(cfg, "hook-loop", "config.json")); err != nil {
		t.Fatal(err)
	}
	writeLean("v0.0.1-old go1.20 vcs.revision=0000", 0o755)
	check("another build", "", full, "not of this build")
}
