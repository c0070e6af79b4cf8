// Package procs finds the processes a test run started and left running: a
// hook that forked a server, a kept-alive executor nobody stopped. A suite's
// TestMain marks its own environment (Mark), so everything it launches
// inherits the marker, and after m.Run asks Check for what still runs. It
// reads /proc, so it works on Linux only; elsewhere Find says so.
package procs

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// MarkerEnv is the variable Mark sets; its value names one test process.
const MarkerEnv = "HOOK_LOOP_TEST_RUN"

// ErrUnsupported is Find's error where there is no /proc to read.
var ErrUnsupported = errors.New("listing processes needs /proc (Linux)")

// Proc is one running process.
type Proc struct {
	PID     int
	Exe     string   // what /proc/PID/exe points at, "" when unreadable
	Cmdline []string // its argv
}

func (p Proc) String() string {
	return fmt.Sprintf("pid %d: %s (executable %s)", p.PID, strings.Join(p.Cmdline, " "), p.Exe)
}

// Match selects processes: one whose environment carries Env ("KEY=VALUE"),
// or whose executable is one of Exes. The zero Match selects nothing.
type Match struct {
	Env  string
	Exes []string
}

// Mark sets MarkerEnv in this process's environment to a value of its own, so
// that every process it starts from now on carries it, and returns the
// Match.Env that selects them.
func Mark() (string, error) {
	v := strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	if err := os.Setenv(MarkerEnv, v); err != nil {
		return "", fmt.Errorf("mark the environment: %w", err)
	}
	return MarkerEnv + "=" + v, nil
}

// Find lists the running processes, other than this one, that m selects.
// A zombie (exited, not yet reaped) has no executable nor environment left
// to read, so it never matches; nor do other users' processes, whose files
// this one cannot read.
func Find(m Match) ([]Proc, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil || !exists("/proc/self/environ") {
		return nil, ErrUnsupported
	}
	exes := make([]string, 0, len(m.Exes))
	for _, e := range m.Exes {
		if r, err := filepath.EvalSymlinks(e); err == nil {
			e = r
		}
		exes = append(exes, e)
	}
	self := os.Getpid()
	var out []Proc
	for _, ent := range ents {
		pid, err := strconv.Atoi(ent.Name())
		if err != nil || pid == self {
			continue
		}
		dir := filepath.Join("/proc", ent.Name())
		exe, _ := os.Readlink(filepath.Join(dir, "exe"))
		// The kernel marks an executable removed since the start; the
		// process runs it all the same.
		exe = strings.TrimSuffix(exe, " (deleted)")
		hit := exe != "" && slices.Contains(exes, exe)
		if !hit && m.Env != "" {
			env, _ := os.ReadFile(filepath.Join(dir, "environ"))
			hit = slices.Contains(strings.Split(string(env), "\x00"), m.Env)
		}
		if !hit {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join(dir, "cmdline"))
		out = append(out, Proc{PID: pid, Exe: exe, Cmdline: strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")})
	}
	return out, nil
}

// Leftovers polls Find until nothing matches or grace has passed, and returns
// what still runs then: a process that is on its way out gets the grace to
// finish.
func Leftovers(m Match, grace time.Duration) ([]Proc, error) {
	deadline := time.Now().Add(grace)
	for {
		ps, err := Find(m)
		if err != nil || len(ps) == 0 || time.Now().After(deadline) {
			return ps, err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Kill kills each process.
func Kill(ps []Proc) {
	for _, p := range ps {
		if proc, err := os.FindProcess(p.PID); err == nil {
			_ = proc.Kill()
		}
	}
}

// Check is what a TestMain runs after m.Run: it waits up to grace for the
// processes m selects to end, reports to w (naming each pid and command line)
// and kills those that did not, and returns false if there were any. Where
// processes cannot be listed it says so and returns true.
func Check(w io.Writer, suite string, m Match, grace time.Duration) bool {
	left, err := Leftovers(m, grace)
	if err != nil {
		fmt.Fprintf(w, "%s: not checked for leftover processes: %v\n", suite, err)
		return true
	}
	if len(left) == 0 {
		return true
	}
	fmt.Fprintf(w, "%s: FAIL: %d process(es) the tests started still run %s after the tests ended (killed now):\n", suite, len(left), grace)
	for _, p := range left {
		fmt.Fprintf(w, "  %s\n", p)
	}
	Kill(left)
	return false
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
