package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/loop/pin"
	"github.com/hook-loop/hook-loop/loop/session"
)

const reloadLoopA = `{"loop": {"id": "a", "initial_state": "x", "states": ["x", "done"], "events": ["go"], "transitions": [{"from": "x", "event": "go", "to": "done"}]}}`
const reloadLoopB = `{"loop": {"id": "b", "initial_state": "done", "states": ["done"], "events": [], "transitions": []}}`

// startSessions pins loop A for each session, as their first hook would.
func startSessions(t *testing.T, cfg, logPath string, ids ...string) {
	t.Helper()
	err := session.Open(logPath).Update(func(tx session.Tx) error {
		for _, id := range ids {
			if _, _, err := pin.Default().Judge(tx, id, pin.ReadFile(cfg)); err != nil {
				return err
			}
			if _, err := tx.Append(eventlog.Event{SessionID: id, EventType: eventlog.TypeLoopStarted, State: "x"}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestReload(t *testing.T) {
	cases := []struct {
		name     string
		sessions []string
		args     []string
		code     int
		want     string
		repinned string
	}{
		{"the only live session", []string{"s1"}, nil, 0, "session s1 is now judged by", "s1"},
		{"named", []string{"s1", "s2"}, []string{"--session", "s2"}, 0, "session s2", "s2"},
		{"two live sessions", []string{"s1", "s2"}, nil, 2, "name one with --session: s1, s2", ""},
		{"unknown session", []string{"s1"}, []string{"--session", "nope"}, 1, `no session "nope"`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(eventlog.StateDirEnv, t.TempDir())
			dir := t.TempDir()
			cfg := filepath.Join(dir, "hook-loop.json")
			logPath := filepath.Join(dir, ".hook-loop", "events.jsonl")
			must(t, os.WriteFile(cfg, []byte(reloadLoopA), 0o644))
			startSessions(t, cfg, logPath, c.sessions...)
			must(t, os.WriteFile(cfg, []byte(reloadLoopB), 0o644))
			var out, errOut bytes.Buffer
			code := Main(append([]string{"hook-loop", "reload", "--config", cfg, "--event-log", logPath}, c.args...), nil, &out, &errOut)
			if code != c.code || !strings.Contains(out.String()+errOut.String(), c.want) {
				t.Fatalf("exit %d, out %q err %q; want %d and %q", code, out.String(), errOut.String(), c.code, c.want)
			}
			_ = session.Open(logPath).View(func(tx session.Tx) error {
				for _, id := range c.sessions {
					want := pin.Hash([]byte(reloadLoopA))
					if id == c.repinned {
						want = pin.Hash([]byte(reloadLoopB))
					}
					if got := tx.Session(id).Pinned; got != want {
						t.Errorf("session %s pinned %.12s, want %.12s", id, got, want)
					}
				}
				return nil
			})
		})
	}
}

// status shows the pinned loop, and what the loop file holds instead.
func TestStatusShowsPinnedLoop(t *testing.T) {
	_, logPath := loopFileGone(t)
	var out, errOut bytes.Buffer
	if code := Main([]string{"hook-loop", "status", "--event-log", logPath}, nil, &out, &errOut); code != 0 {
		t.Fatalf("status: exit %d %s", code, errOut.String())
	}
	want := "loop:          pinned " + pin.Hash([]byte(reloadLoopA))[:12] + " — the loop file is gone"
	if !strings.Contains(out.String(), want) {
		t.Fatalf("status does not show the pin:\n%s", out.String())
	}
}

func TestDoctorNamesSessionsWithoutTheirLoopFile(t *testing.T) {
	dir, _ := loopFileGone(t)
	fs := sessionFindings(dir, nil)
	if len(fs) != 1 || !strings.Contains(fs[0].What, "session s1: the loop file is gone") {
		t.Fatalf("findings: %+v", fs)
	}
}

// loopFileGone is a project whose session s1 pinned loop A, then saw the loop
// file go.
func loopFileGone(t *testing.T) (dir, logPath string) {
	t.Helper()
	t.Setenv(eventlog.StateDirEnv, t.TempDir())
	dir = t.TempDir()
	cfg := filepath.Join(dir, "hook-loop.json")
	logPath = filepath.Join(dir, ".hook-loop", "events.jsonl")
	must(t, os.WriteFile(cfg, []byte(reloadLoopA), 0o644))
	startSessions(t, cfg, logPath, "s1")
	must(t, os.Remove(cfg))
	startSessions(t, cfg, logPath, "s1") // the next event notes the file gone
	return dir, logPath
}
