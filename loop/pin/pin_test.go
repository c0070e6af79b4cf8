package pin_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/loop/pin"
	"github.com/hook-loop/hook-loop/loop/session"
)

const loopA = `{"loop": {"id": "a", "initial_state": "x", "states": ["x", "done"], "events": ["go"], "transitions": [{"from": "x", "event": "go", "to": "done"}]}}`
const loopB = `{"loop": {"id": "b", "initial_state": "done", "states": ["done"], "events": [], "transitions": []}}`

func TestStoreKeepsContentByHash(t *testing.T) {
	s := pin.Store{Dir: filepath.Join(t.TempDir(), "pins")}
	hash, path, err := s.Put([]byte(loopA))
	if err != nil || hash != pin.Hash([]byte(loopA)) || path != s.Path(hash) {
		t.Fatalf("Put: %s %s %v", hash, path, err)
	}
	if again, _, err := s.Put([]byte(loopA)); err != nil || again != hash {
		t.Fatalf("second Put: %s %v", again, err)
	}
	if got, err := s.Get(hash); err != nil || string(got) != loopA {
		t.Fatalf("Get: %q %v", got, err)
	}
	cases := []struct {
		name   string
		break_ func()
		want   string
	}{
		{"edited", func() { os.WriteFile(path, []byte(loopB), 0o600) }, "does not match its hash"},
		{"deleted", func() { os.Remove(path) }, "not available"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.break_()
			// Every way of losing the pin is ErrMissing: the hook refuses.
			if _, err := s.Get(hash); !errors.Is(err, pin.ErrMissing) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Get after the pin was %s: %v", c.name, err)
			}
		})
	}
}

// memTx is a one-session log in memory.
type memTx struct{ v session.View }

func (m *memTx) Session(string) session.View { return m.v }
func (m *memTx) Project() session.View       { return m.v }
func (m *memTx) Append(e eventlog.Event) (eventlog.Event, error) {
	m.v.Fold(&e)
	return e, nil
}

func TestJudgePinsThenKeeps(t *testing.T) {
	s := pin.Store{Dir: t.TempDir()}
	tx := &memTx{}
	file := &pin.File{Path: "hook-loop.json", Data: []byte(loopA)}
	spec, notice, err := s.Judge(tx, "s", file)
	if err != nil || spec.Definition.ID != "a" || notice != "" || tx.v.Pinned != pin.Hash([]byte(loopA)) {
		t.Fatalf("first event: %v %q %v", spec, notice, err)
	}
	cases := []struct {
		name   string
		file   *pin.File
		noted  string
		notice string
	}{
		{"changed", &pin.File{Path: "hook-loop.json", Data: []byte(loopB)}, pin.Hash([]byte(loopB)), "changed"},
		{"missing", &pin.File{Path: "hook-loop.json", Err: os.ErrNotExist}, "missing", "gone"},
		{"restored", file, "", "pinned loop again"},
	}
	for _, c := range cases {
		for i := 0; i < 2; i++ {
			spec, notice, err := s.Judge(tx, "s", c.file)
			if err != nil || spec.Definition.ID != "a" {
				t.Fatalf("%s: judged by %v, %v", c.name, spec, err)
			}
			if (i == 0) != strings.Contains(notice, c.notice) || tx.v.LoopFile != c.noted {
				t.Fatalf("%s #%d: notice %q, noted %q", c.name, i, notice, tx.v.LoopFile)
			}
		}
	}
	if _, err := s.Reload(tx, "s", &pin.File{Path: "hook-loop.json", Data: []byte(loopB)}); err != nil {
		t.Fatal(err)
	}
	if spec, _, err := s.Judge(tx, "s", &pin.File{Path: "hook-loop.json", Data: []byte(loopB)}); err != nil || spec.Definition.ID != "b" {
		t.Fatalf("after reload: %v %v", spec, err)
	}
	var gone *pin.GoneError
	if _, _, err := s.Judge(&memTx{}, "t", &pin.File{Path: "/p/hook-loop.json", Err: os.ErrNotExist}); !errors.As(err, &gone) || !strings.Contains(err.Error(), "git checkout hook-loop.json") {
		t.Fatalf("first event with no file: %v", err)
	}
}
