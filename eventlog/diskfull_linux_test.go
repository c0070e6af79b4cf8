//go:build linux

package eventlog

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
)

func init() { childModes["fsize"] = childFsize }

// childFsize appends under a file size limit of EL_LIMIT bytes until a write
// fails, prints that error and exits 3.
func childFsize() int {
	if os.Getenv("EL_IGNORE_XFSZ") != "" {
		signal.Ignore(syscall.SIGXFSZ)
	}
	limit := uint64(envInt("EL_LIMIT"))
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
		fmt.Fprintln(os.Stderr, "setrlimit:", err)
		return 1
	}
	l := openTest(os.Getenv("EL_LOG"))
	for i := 0; i < 10000; i++ {
		err := l.Update(func(tx *Tx) error {
			for j := range 3 {
				if _, err := tx.Append(Event{SessionID: "s", State: "x", EventType: TypeHookFired, Actor: "full", Payload: map[string]any{"i": i, "j": j, "pad": strings.Repeat("f", 100)}}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 3
		}
	}
	fmt.Fprintln(os.Stderr, "no write failed")
	return 1
}

// TestDiskFull fills the log's file size limit: the failing append reports a
// clear error and takes back its partial write, so the log keeps only whole
// events and the next append (with room again) works.
func TestDiskFull(t *testing.T) {
	for _, ignore := range []bool{true, false} {
		t.Run(fmt.Sprint("ignore SIGXFSZ=", ignore), func(t *testing.T) {
			l := newLog(t)
			for i := range 5 {
				appendAll(t, l, ev("s", TypeEvidenceRegistered, "x", map[string]any{"i": i}))
			}
			before, _ := os.ReadFile(l.Path())
			env := []string{"EL_LOG=" + l.Path(), fmt.Sprint("EL_LIMIT=", len(before)+1500)}
			if ignore {
				env = append(env, "EL_IGNORE_XFSZ=1")
			}
			cmd := child("fsize", env...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			clean := true // the child saw the error (not killed by the signal)
			if !errors.As(err, &ee) {
				t.Fatalf("child: %v: %s", err, stderr.String())
			}
			if ee.ExitCode() != 3 {
				// Without the signal ignored, the kernel's SIGXFSZ may end the
				// process; that is a crash, which the log must survive as well.
				if ws, ok := ee.Sys().(syscall.WaitStatus); !ignore && ok && ws.Signaled() && ws.Signal() == syscall.SIGXFSZ {
					t.Logf("child killed by SIGXFSZ")
					clean = false
				} else {
					t.Fatalf("child: %v: %s", err, stderr.String())
				}
			} else {
				msg := stderr.String()
				if !strings.Contains(msg, "append 3 events to "+l.Path()) || !strings.Contains(msg, "file too large") {
					t.Fatalf("error %q does not say what failed", msg)
				}
			}
			after, _ := os.ReadFile(l.Path())
			if !bytes.HasPrefix(after, before) {
				t.Fatal("events written before the disk filled were changed")
			}
			if clean && (len(after) == 0 || after[len(after)-1] != '\n') {
				t.Fatalf("the failed append left a partial line: %q", after[max(0, len(after)-80):])
			}
			var warns []string
			n := 0
			if err := l.Scan(func(w string) { warns = append(warns, w) }, func(int, Event) error { n++; return nil }); err != nil {
				t.Fatal(err)
			}
			if clean && len(warns) > 0 {
				t.Fatalf("warnings: %q", warns)
			}
			if n < 5 || (clean && (n-5)%3 != 0) {
				t.Fatalf("%d events: a transaction was partly written", n)
			}
			appendAll(t, l, ev("s", TypeStopRefused, "x", nil))
			if r, err := l.Verify(); err != nil || !r.OK() || r.Events != n+1 {
				t.Fatalf("verify %+v %v", r, err)
			}
			assertConsistent(t, l)
		})
	}
}
