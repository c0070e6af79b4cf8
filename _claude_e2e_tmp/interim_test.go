package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var (
	buildOnce sync.Once
	built     string
	buildErr  error
	buildOut  []byte
)

func hookLoopBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Dir(filepath.Dir(file))
		dir, _ := os.MkdirTemp("", "hl-e2e-")
		built = filepath.Join(dir, "hook-loop")
		cmd := exec.Command("go", "build", "-o", built, ".")
		cmd.Dir = root
		buildOut, buildErr = cmd.CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("build: %v %s", buildErr, buildOut)
	}
	return built
}

func harnessBin(t *testing.T, name string) string {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(file))
	p := filepath.Join(root, ".cache", "harnesses", name, "node_modules", ".bin", name)
	if _, err := os.Stat(p); err != nil {
		t.Skip("missing")
	}
	return p
}
