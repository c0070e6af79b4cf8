//go:build unix

package lifecycle_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/internal/testkit/procs"
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
		t.Skip("python3 is not installed: skipping the Python executor tests")
	}
}

// pyRunner is a Runner with its XDG directories in a temp dir and this test
// binary as the kept-alive server; every server it started is stopped at cleanup.
func pyRunner(t testing.TB, dir string, e lifecycle.Entry) *lifecycle.Runner {
	t.Helper()
	e.Dir = dir
	r, err := lifecycle.NewRunner(e)
	if err != nil {
		t.Fatal(err)
	}
	r.CacheDir = filepath.Join(dir, "cache")
	r.StateDir = filepath.Join(dir, "state")
	r.Serve = []string{os.Args[0], "keepalive-serve"}
	t.Cleanup(func() { stopServers(r.StateDir) })
	return r
}

// stopServers stops the kept-alive servers started under stateDir, and with
// them their executors, and waits until they have ended.
func stopServers(stateDir string) {
	procs.StopPIDFiles(filepath.Join(stateDir, "hook-loop", "executors", "*.pid"), 5*time.Second)
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
			t.Errorf("%s: not kept alive, yet both calls answered from pid %s", e.Name, a)
		}
	}
}

func TestPythonModuleKeptAlive(t *testing.T) {
	needPython(t)
	dir := pyDir(t)
	r := pyRunner(t, dir, lifecycle.Entry{Name: "kept", Module: "pidhook:Pid", KeepAlive: true, Timeout: 5 * time.Second})
	first, err := callPid(t, r, "kept")
	if err != nil {
		t.Fatal(err)
	}
	if again, err := callPid(t, r, "kept"); err != nil || again != first {
		t.Fatalf("second call: pid %s (%v), want the kept %s", again, err, first)
	}

	// Died: restarted on the next call, without a failure.
	pid, _ := strconv.Atoi(first)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	restarted, err := callPid(t, r, "kept")
	if err != nil || restarted == first {
		t.Fatalf("after the executor died: pid %s (%v), want a new one", restarted, err)
	}

	// Its file changed: a new executor runs the new code.
	src := strings.Replace(pidHook, "ctx.reason = str(os.getpid())", "ctx.reason = 'v2 ' + str(os.getpid())", 1)
	if err := os.WriteFile(filepath.Join(dir, "pidhook.py"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	v2, err := callPid(t, r, "kept")
	if err != nil || !strings.HasPrefix(v2, "v2 ") {
		t.Fatalf("after the file changed: %q (%v), want the new code's answer", v2, err)
	}
}

func TestPythonKeptAliveHungIsKilledAtItsDeadline(t *testing.T) {
	needPython(t)
	dir := pyDir(t)
	r := pyRunner(t, dir, lifecycle.Entry{Name: "kept", Module: "pidhook:Pid", KeepAlive: true, Timeout: 3 * time.Second})
	first, err := callPid(t, r, "kept")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "hang"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = callPid(t, r, "kept")
	if err == nil || !strings.Contains(err.Error(), "timed out after 3s") {
		t.Fatalf("hung call: err = %v, want timed out", err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("a hung executor held the call %s", el)
	}
	pid, _ := strconv.Atoi(first)
	time.Sleep(100 * time.Millisecond)
	if syscall.Kill(pid, 0) == nil {
		t.Errorf("the hung executor %d still runs", pid)
	}
	os.Remove(filepath.Join(dir, "hang"))
	if next, err := callPid(t, r, "kept"); err != nil || next == first {
		t.Fatalf("after the kill: pid %s (%v), want a restarted executor", next, err)
	}
}

func TestPythonKeptAliveStopsWhenIdle(t *testing.T) {
	needPython(t)
	dir := pyDir(t)
	r := pyRunner(t, dir, lifecycle.Entry{Name: "kept", Module: "pidhook:Pid", KeepAlive: true, Idle: 300 * time.Millisecond})
	first, err := callPid(t, r, "kept")
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(first)
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if syscall.Kill(pid, 0) == nil {
		t.Fatal("the executor outlived its idle time")
	}
	socks, _ := filepath.Glob(filepath.Join(r.StateDir, "hook-loop", "executors", "*.sock"))
	if len(socks) != 0 {
		t.Errorf("sockets left: %v", socks)
	}
	if next, err := callPid(t, r, "kept"); err != nil || next == first {
		t.Fatalf("after idling out: %s (%v)", next, err)
	}
}

// 64 hook processes at once find no server: exactly one starts, all are answered.
func TestPythonKeptAliveParallel(t *testing.T) {
	needPython(t)
	dir := pyDir(t)
	e := lifecycle.Entry{Name: "kept", Module: "pidhook:Pid", KeepAlive: true, Timeout: 20 * time.Second}
	runners := make([]*lifecycle.Runner, 64)
	for i := range runners {
		runners[i] = pyRunner(t, dir, e)
	}
	pids := make([]string, len(runners))
	errs := make([]error, len(runners))
	var wg sync.WaitGroup
	for i, r := range runners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pids[i], errs[i] = callPid(t, r, "kept")
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if pids[i] != pids[0] {
			t.Fatalf("call %d answered from pid %s, call 0 from %s: more than one executor started", i, pids[i], pids[0])
		}
	}
	servers, _ := filepath.Glob(filepath.Join(runners[0].StateDir, "hook-loop", "executors", "*.pid"))
	if len(servers) != 1 {
		t.Errorf("servers = %v, want exactly one", servers)
	}
}

func TestKeptAliveRefusesASharedSocketDir(t *testing.T) {
	dir := pyDir(t)
	r := pyRunner(t, dir, lifecycle.Entry{Name: "kept", Command: self("null"), KeepAlive: true})
	sockDir := filepath.Join(r.StateDir, "hook-loop", "executors")
	if err := os.MkdirAll(sockDir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(sockDir, 0o777); err != nil {
		t.Fatal(err)
	}
	res, err := r.Call(context.Background(), "kept", hooks.PointLoopStart, hooks.NewLoopStart(facts))
	if err != nil {
		t.Fatal(err)
	}
	if res.Err == nil || !strings.Contains(res.Err.Error(), "only it can write") {
		t.Fatalf("err = %v, want the world-writable socket directory refused", res.Err)
	}
}

// A Go command executor written with hooks.ServeStdio is kept alive the same way.
func TestGoCommandKeptAlive(t *testing.T) {
	dir := pyDir(t)
	r := pyRunner(t, dir, lifecycle.Entry{Name: "gokept", Command: self("serve-pid"), KeepAlive: true, Timeout: 10 * time.Second})
	first, err := callPid(t, r, "gokept")
	if err != nil {
		t.Fatal(err)
	}
	if again, err := callPid(t, r, "gokept"); err != nil || again != first {
		t.Fatalf("second call from pid %s (%v), want the kept %s", again, err, first)
	}
}
