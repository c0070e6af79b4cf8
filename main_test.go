package main

import (
	"os"
	"path/filepath"
	"testing"

	hlcli "github.com/hook-loop/hook-loop/cli"
	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"hook-loop": func() { os.Exit(hlcli.Main(os.Args, os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs the end-to-end command scripts in testdata/script. Scripts that
// need the prototype's reference files use [shared] and are skipped, with a
// message, when ../shared is absent.
func TestScripts(t *testing.T) {
	shared, _ := filepath.Abs(filepath.Join("..", "shared"))
	_, err := os.Stat(filepath.Join(shared, "reference"))
	hasShared := err == nil
	if !hasShared {
		t.Log("../shared is absent: scripts marked [shared] are skipped")
	}
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		RequireExplicitExec: true,
		Setup: func(e *testscript.Env) error {
			e.Setenv("SHARED", shared)
			readme, _ := filepath.Abs("README.md")
			e.Setenv("README", readme)
			e.Setenv("XDG_CONFIG_HOME", filepath.Join(e.WorkDir, ".config"))
			e.Setenv("HOME", e.WorkDir)
			// Installs keep each project's log under the user's state folder.
			e.Setenv("HOOK_LOOP_STATE_DIR", filepath.Join(e.WorkDir, ".state"))
			return nil
		},
		Condition: func(cond string) (bool, error) {
			if cond == "shared" {
				return hasShared, nil
			}
			return false, nil
		},
	})
}
