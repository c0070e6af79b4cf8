package serve

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/pin"
	"github.com/hook-loop/hook-loop/loop/session"
)

const loopA = `{"loop": {"id": "a", "initial_state": "building", "states": ["building", "done", "stopped"],
 "events": ["finished"], "transitions": [{"from": "building", "event": "finished", "to": "done"}]},
 "codex": {"event_map": [{"codex_event": "UserPromptSubmit", "when": {"prompt_match": "(?i)\\bdone\\b"}, "emit": "finished"}]}}`

const loopB = `{"loop": {"id": "b", "initial_state": "building", "states": ["building", "done", "stopped"],
 "events": ["finished"], "transitions": [{"from": "building", "event": "finished", "to": "done"}]}}`

// The cached judge answers, logs and refuses exactly what pin.Store.Judge does,
// step by step through a session's life with its loop file and its pin changed
// under it: two logs, one judged by each, must agree on every step and end
// with the same events. Steps where nothing changed are served from the cache
// (the very spec parsed before).
func TestLoopCacheJudgesAsPin(t *testing.T) {
	state := t.TempDir()
	t.Setenv("HOOK_LOOP_STATE_DIR", state)
	dir := t.TempDir()
	file := filepath.Join(dir, "hook-loop.json")
	logs := [2]*session.Log{session.Open(filepath.Join(dir, "plain.jsonl")), session.Open(filepath.Join(dir, "cached.jsonl"))}
	cache := newLoopCache()
	judges := [2]func(pin.Tx, string, *pin.File) (*dsl.Spec, string, error){pin.Default().Judge, cache.Judge}
	pinA := pin.Default().Path(pin.Hash([]byte(loopA)))

	write := func(name, data string) func() {
		return func() {
			if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	remove := func(name string) func() { return func() { os.Remove(name) } }
	steps := []struct {
		what   string
		sid    string
		change func()
		cached bool // the cached judge must return the spec of the step before
	}{
		{"first event pins the file", "s1", write(file, loopA), false},
		{"same file: parsed as pinned", "s1", func() {}, false},
		{"same file again", "s1", func() {}, true},
		{"and again", "s1", func() {}, true},
		{"another session pins the same content", "s2", func() {}, false},
		{"file changed: noted", "s1", write(file, loopB), false},
		{"file still changed", "s1", func() {}, true},
		{"pin deleted: refused", "s1", remove(pinA), false},
		{"pin restored", "s1", write(pinA, loopA), false},
		{"pin edited: refused", "s1", write(pinA, loopB), false},
		{"pin restored again", "s1", write(pinA, loopA), false},
		{"file gone: noted", "s1", remove(file), false},
		{"file still gone", "s1", func() {}, true},
		{"file holds the pin again: noted", "s1", write(file, loopA), false},
		{"unchanged since", "s1", func() {}, true},
		{"file unreadable (a directory)", "s1", func() { os.Remove(file); os.Mkdir(file, 0o755) }, false},
	}
	var prev *dsl.Spec
	for i, s := range steps {
		s.change()
		f := pin.ReadFile(file)
		var got [2]string
		var specs [2]*dsl.Spec
		for j := range logs {
			err := logs[j].Update(func(tx session.Tx) error {
				spec, notice, err := judges[j](tx, s.sid, f)
				specs[j] = spec
				got[j] = fmt.Sprintf("notice %q err %v", notice, err)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		if got[0] != got[1] {
			t.Fatalf("step %d (%s):\n pin    %s\n cached %s", i, s.what, got[0], got[1])
		}
		if (specs[0] == nil) != (specs[1] == nil) || (specs[0] != nil && !reflect.DeepEqual(*specs[0], *specs[1])) {
			t.Fatalf("step %d (%s): specs differ:\n pin    %+v\n cached %+v", i, s.what, specs[0], specs[1])
		}
		if s.cached && (specs[1] == nil || specs[1] != prev) {
			t.Fatalf("step %d (%s): the cached judge parsed the loop again", i, s.what)
		}
		prev = specs[1]
	}
	events := func(l *session.Log) []string {
		var out []string
		err := l.Scan(func(string) {}, func(_ int, e eventlog.Event) error {
			p, _ := json.Marshal(e.Payload)
			out = append(out, e.SessionID+" "+e.EventType+" "+string(p))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if a, b := events(logs[0]), events(logs[1]); !reflect.DeepEqual(a, b) || len(a) < 5 {
		t.Fatalf("logs differ:\n pin    %q\n cached %q", a, b)
	}
}
