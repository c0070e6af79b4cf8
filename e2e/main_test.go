// Package e2e runs the real harness binaries (Codex CLI, Claude Code, opencode,
// pi) against mock model servers written in Go, on 127.0.0.1 only, with
// hook-loop installed the way a user installs it. Each suite skips, saying so,
// when its harness is not installed (scripts/install-harnesses.sh), and fails
// instead under CI=true. At the end, TestMain fails the run if a process the
// tests started still runs.
package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/project"
	"github.com/hook-loop/hook-loop/testkit/need"
	"github.com/hook-loop/hook-loop/testkit/procs"
)

// builtHookLoop is the hook-loop binary TestMain built for this run, with the
// lean hook binary beside it, in a directory whose name has a space:
// installers must quote the absolute path they write into harness configs.
var (
	builtHookLoop string
	buildErr      error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "hook-loop e2e ")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	builtHookLoop = filepath.Join(dir, "hook-loop")
	if os.Getenv("HOOK_LOOP_STATE_DIR") == "" {
		// Installs keep each project's log in the user's state folder: the
		// tests' own, not the person's running them.
		os.Setenv("HOOK_LOOP_STATE_DIR", filepath.Join(dir, "state"))
	}
	// `go test` runs with the toolchain's GOROOT in the environment; fall back
	// to PATH when it is not there.
	goBin := filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	if _, err := os.Stat(goBin); os.Getenv("GOROOT") == "" || err != nil {
		goBin = "go"
	}
	// The lean hook binary beside it, as the README's install line puts it:
	// installs write it into Codex's and Claude Code's hooks.
	for _, b := range [][2]string{{builtHookLoop, "."}, {filepath.Join(dir, "hook-loop-hook"), "./cmd/hook-loop-hook"}} {
		cmd := exec.Command(goBin, "build", "-o", b[0], b[1])
		cmd.Dir = repoRoot()
		if out, err := cmd.CombinedOutput(); err != nil && buildErr == nil {
			buildErr = fmt.Errorf("go build %s: %v\n%s", b[1], err, out)
		}
	}
	// Every process the tests start (harnesses, their hooks, what those
	// start) inherits the mark; none may outlive the tests. The built binaries
	// are matched too, for a hook a harness ran with a scrubbed environment.
	marker, err := procs.Mark()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	code := m.Run()
	built := procs.Match{Env: marker, Exes: []string{builtHookLoop, filepath.Join(dir, "hook-loop-hook")}}
	if !procs.Check(os.Stderr, "e2e", built, 5*time.Second) && code == 0 {
		code = 1
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// projectLog is the event log of the project at dir, where its installed
// hooks write it (the user's state folder by default, else .hook-loop).
func projectLog(dir string) string { return project.FindLog(dir, nil) }

// repoRoot is the module root (the parent of this directory).
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

// hookLoopBinary returns the hook-loop binary built for this test run.
func hookLoopBinary(t testing.TB) string {
	t.Helper()
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtHookLoop
}

// harnessBin finds a harness installed by scripts/install-harnesses.sh or
// skips the test (fails it under CI), saying how to install it. bin defaults
// to name.
func harnessBin(t testing.TB, name string, bin ...string) string {
	t.Helper()
	return need.Harness(t, name, bin...)
}
