//go:build unix

package lifecycle_test

import (
	"context"
	"github.com/hook-loop/hook-loop/testkit/need"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/lifecycle"
	"github.com/hook-loop/hook-loop/sdk/hooks"
)

// pidHook refuses every loop start with its own process id as the reason, so a
// test can tell a reused executor from a fresh one. It hangs while a file named
// "hang" exists beside it.
const pidHook = `import os, time
from hook_loop_hooks import LifecycleHooks, LoopStart, serve_stdio

HERE = os.path.dirname(os.path.abspath(__file__))


class Pid(LifecycleHooks):
    def loop_start(self, ctx: LoopStart):
        while os.path.exists(os.path.join(HERE, "hang")):
            time.sleep(0.05)
        ctx.proceed = False
        ctx.reason = str(os.getpid())
        return ctx


if __name__ == "__main__":
    serve_stdio(Pid())
`

func needPython(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		need.Skipf(t, "python3 is not installed: skipping the Python executor tests")
	}
}

// pyRunner is a Runner with its cache directory in a temp dir.
func pyRunner(t testing.TB, dir string, e lifecycle.Entry) *lifecycle.Runner {
	t.Helper()
	e.Dir = dir
	r, err := lifecycle.NewRunner(e)
	if err != nil {
		t.Fatal(err)
	}
	r.CacheDir = filepath.Join(dir, "cache")
	return r
}

func pyDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "hl-py-") // short: socket paths are bounded
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.WriteFile(filepath.Join(dir, "pidhook.py"), []byte(pidHook), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// callPid sends loop_start and returns the executor's process id.
func callPid(t testing.TB, r *lifecycle.Runner, name string) (string, error) {
	t.Helper()
	res, err := r.Call(context.Background(), name, hooks.PointLoopStart, hooks.NewLoopStart(facts))
	if err != nil {
		t.Fatal(err)
	}
	if res.Err != nil {
		return "", res.Err
	}
	reason, _ := res.Changed["reason"].(string)
	if reason == "" {
		t.Fatalf("answer %s has no pid", res.Answer)
	}
	return reason, nil
}

func TestPythonPathAndModuleFresh(t *testing.T) {
	needPython(t)
	dir := pyDir(t)
	for _, e := range []lifecycle.Entry{
		{Name: "path", Path: filepath.Join(dir, "pidhook.py")},
		{Name: "module", Module: "pidhook:Pid"},
		{Name: "module-found", Module: "pidhook"},
		// An older config's keepAlive is read and ignored: every call starts
		// the executor, so nothing a hook starts outlives it.
		{Name: "module-kept", Module: "pidhook:Pid", KeepAlive: true, Idle: time.Minute},
		{Name: "path-kept", Path: filepath.Join(dir, "pidhook.py"), KeepAlive: true},
	} {
		r := pyRunner(t, dir, e)
		a, err := callPid(t, r, e.Name)
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		b, err := callPid(t, r, e.Name)
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		if a == b {
			t.Errorf("%s: both calls answered from pid %s, want a new executor per call", e.Name, a)
		}
	}
}

// An executor that hangs is killed at its deadline with its process group:
// nothing it started is left running.
func TestPythonHungExecutorIsKilledAtItsDeadline(t *testing.T) {
	needPython(t)
	dir := pyDir(t)
	r := pyRunner(t, dir, lifecycle.Entry{Name: "hung", Module: "pidhook:Pid", Timeout: 3 * time.Second})
	if err := os.WriteFile(filepath.Join(dir, "hang"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := callPid(t, r, "hung")
	if err == nil || !strings.Contains(err.Error(), "timed out after 3s") {
		t.Fatalf("hung call: err = %v, want timed out", err)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("a hung executor held the call %s", el)
	}
	os.Remove(filepath.Join(dir, "hang"))
	if _, err := callPid(t, r, "hung"); err != nil {
		t.Fatalf("after the kill: %v, want a fresh executor's answer", err)
	}
}
