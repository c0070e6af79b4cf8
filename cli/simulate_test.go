package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/loop/session"
)

// simulateIn runs simulate of the default gallery loop from dir.
func simulateIn(t *testing.T, dir, eventLog, sessionID string) (code int, out, errOut string) {
	t.Helper()
	var o, e bytes.Buffer
	err := runSimulate(&SimulateOptions{IO: &IOStreams{In: strings.NewReader(""), Out: &o, ErrOut: &e}, WorkDir: dir,
		Profile: "plan_execute", EventLog: eventLog, SessionID: sessionID, HooksConfig: filepath.Join(dir, "none.yaml")})
	var ee *ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.Code
	default:
		t.Fatal(err)
	}
	return code, o.String(), e.String()
}

// TestSimulateNeverWritesAHarnessLog: simulate --event-log on a log whose
// sessions a harness's hooks judge is refused in one line naming the file,
// and the log is left as it was.
func TestSimulateNeverWritesAHarnessLog(t *testing.T) {
	t.Setenv(eventlog.StateDirEnv, t.TempDir())
	dir := t.TempDir()
	logPath := filepath.Join(dir, ".hook-loop", "events.jsonl")
	err := session.Open(logPath).Update(func(tx session.Tx) error {
		_, err := tx.Append(eventlog.Event{SessionID: "s1", EventType: eventlog.TypeLoopStarted, State: "planning",
			Payload: map[string]any{"harness": "claude", "loop_id": "plan_execute"}})
		return err
	})
	must(t, err)
	before, err := os.ReadFile(logPath)
	must(t, err)
	code, _, errOut := simulateIn(t, dir, ".hook-loop/events.jsonl", "s1")
	if code != 1 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, logPath) || !strings.Contains(errOut, `"s1"`) {
		t.Fatalf("exit %d, stderr %q: want exit 1 and one line naming %s and the session", code, errOut, logPath)
	}
	after, err := os.ReadFile(logPath)
	must(t, err)
	if !bytes.Equal(before, after) {
		t.Fatalf("the harness's log was written:\n%s", after)
	}
}

// TestSimulateLeavesNothing: a run on its temporary log removes the log's
// folder and the key made for it; a log of its own named with --event-log is
// kept and continued.
func TestSimulateLeavesNothing(t *testing.T) {
	state, tmp := t.TempDir(), t.TempDir()
	t.Setenv(eventlog.StateDirEnv, state)
	t.Setenv("TMPDIR", tmp)
	dir := t.TempDir()
	if code, out, errOut := simulateIn(t, dir, "", "sim"); code != 0 || strings.Contains(out, "event_log") {
		t.Fatalf("exit %d, out %q, stderr %q", code, out, errOut)
	}
	for _, d := range []string{tmp, filepath.Join(state, "keys")} {
		if left, _ := os.ReadDir(d); len(left) > 0 {
			t.Errorf("%s keeps %s after the run", d, left[0].Name())
		}
	}
	own := filepath.Join(dir, "sim.jsonl")
	for run := 0; run < 2; run++ {
		if code, out, errOut := simulateIn(t, dir, own, "sim"); code != 0 || !strings.Contains(out, "event_log: "+own) {
			t.Fatalf("run %d on its own log: exit %d, out %q, stderr %q", run, code, out, errOut)
		}
	}
}
