package e2e

// Interim helpers for the opencode suite until the shared e2e/main_test.go
// (TestMain building hook-loop, harnessBin) lands; then they become thin
// wrappers over it.

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var (
	ocBuildOnce sync.Once
	ocBuilt     string
	ocBuildErr  error
)

// ocHookLoopBin builds hook-loop once per test binary, into a directory whose
// name has a space (the plugin must quote nothing and still work).
func ocHookLoopBin(t *testing.T) string {
	t.Helper()
	ocBuildOnce.Do(func() {
		_, file, _, _ := runtime.Caller(0)
		_ = file; root := "/work/main"
		dir, err := os.MkdirTemp("", "hook-loop e2e opencode ")
		if err != nil {
			ocBuildErr = err
			return
		}
		ocBuilt = filepath.Join(dir, "hook-loop")
		cmd := exec.Command("go", "build", "-o", ocBuilt, ".")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			ocBuildErr = &buildError{err: err, out: string(out)}
		}
	})
	if ocBuildErr != nil {
		t.Fatalf("build hook-loop: %v", ocBuildErr)
	}
	return ocBuilt
}

// ocHarnessBin finds the real opencode binary or skips.
func ocHarnessBin(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	_ = file; root := "/work/main"
	p := filepath.Join(root, ".cache", "harnesses", "opencode", "node_modules", ".bin", "opencode")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("opencode not installed at %s: run scripts/install-harnesses.sh opencode", p)
	}
	return p
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }
