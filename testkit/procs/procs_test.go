//go:build linux

package procs_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/testkit/procs"
)

const modeEnv = "PROCS_TEST_MODE"

// The test binary doubles as the processes the tests look for: in mode
// "daemon" it starts itself as a detached "server" (its own session, as the
// hook server was) that sleeps, prints its pid and exits at once, leaving it
// behind; in mode "sleep" it sleeps for the duration in its last argument.
func TestMain(m *testing.M) {
	switch os.Getenv(modeEnv) {
	case "daemon":
		cmd := exec.Command(os.Args[0], "__hookd", "60s")
		cmd.Env = append(os.Environ(), modeEnv+"=sleep")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(cmd.Process.Pid)
		os.Exit(0)
	case "sleep":
		d, _ := time.ParseDuration(os.Args[len(os.Args)-1])
		time.Sleep(d)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func mark(t *testing.T) procs.Match {
	v := fmt.Sprintf("%s-%d", t.Name(), time.Now().UnixNano())
	t.Setenv(procs.MarkerEnv, v)
	return procs.Match{Env: procs.MarkerEnv + "=" + v}
}

func pids(ps []procs.Proc) []int {
	var out []int
	for _, p := range ps {
		out = append(out, p.PID)
	}
	return out
}

// A hook that forks a server and exits leaves an orphan in a session of its
// own: the check finds it by the marker it inherited and by its executable,
// names it, and kills it.
func TestCheckFindsAndKillsADetachedServer(t *testing.T) {
	m := mark(t)
	if ps, err := procs.Find(m); err == procs.ErrUnsupported {
		t.Skip(err) // not Linux: there is nothing to read
	} else if len(ps) != 0 {
		t.Fatalf("before anything started: %v", ps)
	}
	hook := exec.Command(os.Args[0])
	hook.Env = append(os.Environ(), modeEnv+"=daemon")
	out, err := hook.Output()
	if err != nil {
		t.Fatalf("hook: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("hook printed %q", out)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })

	for _, sel := range []procs.Match{m, {Exes: []string{os.Args[0]}}} {
		got, err := procs.Find(sel)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].PID != pid || !strings.Contains(got[0].String(), "__hookd") {
			t.Errorf("Find(%+v) = %v, want the server %d", sel, got, pid)
		}
	}

	var report bytes.Buffer
	if procs.Check(&report, "suite", m, 100*time.Millisecond) {
		t.Fatalf("Check passed with the server %d running; report:\n%s", pid, report.String())
	}
	if s := report.String(); !strings.Contains(s, "pid "+strconv.Itoa(pid)) || !strings.Contains(s, "__hookd 60s") {
		t.Errorf("the report does not name the pid and command line:\n%s", s)
	}
	if left, err := procs.Leftovers(m, 10*time.Second); err != nil || len(left) != 0 {
		t.Errorf("after Check: %v (%v), want the server killed", left, err)
	}
}

// A process on its way out gets the grace period; one that has exited but is
// not yet reaped (a zombie) is not running.
func TestCheckWaitsOutTheGraceAndIgnoresZombies(t *testing.T) {
	m := mark(t)
	if _, err := procs.Find(m); err == procs.ErrUnsupported {
		t.Skip(err)
	}
	ending := exec.Command(os.Args[0], "300ms")
	ending.Env = append(os.Environ(), modeEnv+"=sleep")
	if err := ending.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- ending.Wait() }()
	if got, _ := procs.Find(m); len(got) != 1 || got[0].PID != ending.Process.Pid {
		t.Fatalf("Find = %v, want the running child %d", got, ending.Process.Pid)
	}
	var report bytes.Buffer
	if !procs.Check(&report, "suite", m, 30*time.Second) {
		t.Errorf("a child that ended within the grace was reported:\n%s", report.String())
	}
	<-done

	// Not waited for: it stays a zombie until Wait.
	zombie := exec.Command(os.Args[0], "0s")
	zombie.Env = append(os.Environ(), modeEnv+"=sleep")
	if err := zombie.Start(); err != nil {
		t.Fatal(err)
	}
	defer zombie.Wait()
	stat := "/proc/" + strconv.Itoa(zombie.Process.Pid) + "/stat"
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(stat)
		if i := bytes.LastIndexByte(b, ')'); i > 0 && i+2 < len(b) && b[i+2] == 'Z' {
			break
		}
	}
	if got, _ := procs.Find(m); len(got) != 0 {
		t.Errorf("Find = %v (pids %v), want the zombie %d passed over", got, pids(got), zombie.Process.Pid)
	}
}
