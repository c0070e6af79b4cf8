package e2e

// Interim helpers for the Claude Code suite until the shared e2e/main_test.go
// (TestMain building hook-loop, harnessBin) lands; then they become thin
// wrappers over it.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var (
	claudeBuildOnce sync.Once
	claudeBuilt     string
	claudeBuildErr  error
)

func claudeRepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

// claudeHookLoopBin builds hook-loop once per test binary, into a directory
// whose name has a space: install must quote the absolute path it writes.
func claudeHookLoopBin(t *testing.T) string {
	t.Helper()
	claudeBuildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "hook-loop e2e claude ")
		if err != nil {
			claudeBuildErr = err
			return
		}
		claudeBuilt = filepath.Join(dir, "hook-loop")
		cmd := exec.Command("go", "build", "-o", claudeBuilt, ".")
		cmd.Dir = claudeRepoRoot()
		if out, err := cmd.CombinedOutput(); err != nil {
			claudeBuildErr = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if claudeBuildErr != nil {
		t.Fatalf("build hook-loop: %v", claudeBuildErr)
	}
	return claudeBuilt
}

// claudeBin finds the real Claude Code CLI or skips.
func claudeBin(t *testing.T) string {
	t.Helper()
	base := os.Getenv("HOOK_LOOP_HARNESS_DIR")
	if base == "" {
		base = filepath.Join(claudeRepoRoot(), ".cache", "harnesses")
	}
	p := filepath.Join(base, "claude", "node_modules", ".bin", "claude")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("Claude Code is not installed at %s: run scripts/install-harnesses.sh claude", p)
	}
	return p
}

// buildError is a failed `go build` with its output (opencode_bins_test.go
// uses it too).
type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }
