//go:build unix

package postgres

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/hook-loop/hook-loop/loop/session"
	"github.com/hook-loop/hook-loop/testkit/pgtest"
)

// childEnv makes the test binary a hook-like child process (see TestKill9);
// with childOnceEnv also set it does one hook's work and exits.
const (
	childEnv     = "HOOK_LOOP_PG_CHILD"
	childOnceEnv = "HOOK_LOOP_PG_CHILD_ONCE"
)

// hookOnce is one hook process's store work: connect (creating the schema on a
// new database), read the session and project, append two events.
func hookOnce() int {
	s, err := Open[session.View](os.Getenv(childEnv), Options{Project: "memory"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer s.Close()
	if err := s.Update(func(tx *testTx) error { return hookWork(tx) }); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// A hook process stays within its 20 MiB memory budget with the store. The test
// binary carries the testing package besides, so this is an upper bound.
func TestHookProcessMemory(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector multiplies memory use; run without -race")
	}
	srv := pgtest.Start(t, pgtest.Options{})
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 { // a new database, then a current one
		cmd := exec.Command(self, "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"="+srv.URL(), childOnceEnv+"=1", "GOGC=100")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("hook process: %v\n%s", err, out)
		}
		rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB on Linux
		t.Logf("run %d: max RSS %.1f MiB", i+1, float64(rss)/1024)
		if rss > 20*1024 {
			t.Errorf("a hook's store work peaked at %.1f MiB, over the 20 MiB budget", float64(rss)/1024)
		}
	}
}
