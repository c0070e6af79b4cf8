package eventlog

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/eventlog/logline"
)

// testFolder is the Folder of this package's tests: a small fold that reads
// every payload key the light parse decodes, so a view that differs between the
// index and a full fold, or between the light and the full parse, shows.
type testFolder struct{}

func (testFolder) Name() string          { return "eventlog-test/1" }
func (testFolder) NewView() View         { return &Summary{} }
func (testFolder) PayloadKeys() []string { return logline.LightKeys() }

// Summary is testFolder's view, plus the session's chain head (LastHash), which
// the log keeps itself.
type Summary struct {
	State    string `json:"state"`
	Events   int    `json:"events"`
	Outcome  string `json:"outcome"`
	Forced   bool   `json:"forced"`
	Reason   string `json:"reason"`
	LastType string `json:"last_type"`
	LastHash string `json:"-"`
}

func (s *Summary) Fold(e *Event) {
	s.Events++
	s.State = e.State
	switch e.EventType {
	case TypeSessionInitialized:
		if v, ok := e.Payload["initial_state"].(string); ok && v != "" {
			s.State = v
		}
	case TypeStateTransitioned:
		if v, ok := e.Payload["to"].(string); ok && v != "" {
			s.State = v
		}
	case TypeLoopOutcome:
		s.Outcome, _ = e.Payload["outcome"].(string)
		s.Forced, _ = e.Payload["forced_by_harness"].(bool)
	case TypeLoopDisarmed:
		s.Reason, _ = e.Payload["reason"].(string)
	}
	s.LastType = e.EventType
}

// Apply folds e and records the hash of its line.
func (s *Summary) Apply(e *Event, lineHash string) {
	s.Fold(e)
	s.LastHash = lineHash
}

// sessionOf is session id's Summary in tx, with its chain head.
func sessionOf(tx *Tx, id string) Summary {
	var s Summary
	if v, ok := tx.View(id).(*Summary); ok {
		s = *v
	}
	s.LastHash = tx.Head(id).LastHash
	return s
}

// projectOf is the project's Summary in tx.
func projectOf(tx *Tx) Summary {
	if v, ok := tx.ProjectView().(*Summary); ok {
		return *v
	}
	return Summary{}
}

// openTest opens the log at path with testFolder.
func openTest(path string) *Log { return Open(path, testFolder{}) }

// otherFolder folds like testFolder under another name.
type otherFolder struct{ testFolder }

func (otherFolder) Name() string { return "eventlog-test-other/1" }

// An index folded by another Folder is not trusted: the log is folded again.
func TestIndexOfAnotherFolderIsRebuilt(t *testing.T) {
	l := newLog(t)
	appendAll(t, l, ev("s", TypeSessionInitialized, "a", map[string]any{"initial_state": "a"}), ev("s", TypeHookFired, "a", nil))
	other := Open(l.Path(), otherFolder{})
	if err := other.View(func(tx *Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(other.Warnings(), "\n"); !strings.Contains(w, "index rebuilt") || !strings.Contains(w, `folded by "eventlog-test/1"`) {
		t.Fatalf("warnings %q", w)
	}
	if err := other.View(func(tx *Tx) error { return nil }); err != nil || len(other.Warnings()) != 0 {
		t.Fatalf("the rebuilt index is not trusted next time: %v %q", err, other.Warnings())
	}
}

// A Log without a Folder appends with the right chain head and leaves the index
// alone; the next Log with a Folder folds what it appended.
func TestLogWithoutFolder(t *testing.T) {
	l := newLog(t)
	appendAll(t, l, ev("s", TypeSessionInitialized, "a", map[string]any{"initial_state": "a"}))
	before, err := os.ReadFile(l.IndexPath())
	if err != nil {
		t.Fatal(err)
	}
	bare := Open(l.Path(), nil)
	if err := bare.Update(func(tx *Tx) error {
		if tx.View("s") != nil || tx.ProjectView() != nil {
			t.Error("a Log without a Folder has views")
		}
		if h := tx.Head("s"); h.Events != 1 || h.LastHash == "" {
			t.Errorf("head %+v", h)
		}
		_, err := tx.Append(ev("s", TypeStateTransitioned, "a", map[string]any{"to": "b"}))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(l.IndexPath()); !bytes.Equal(before, after) {
		t.Fatal("a Log without a Folder wrote the index")
	}
	if m, _, _ := viewAll(t, l); m["s"].State != "b" || m["s"].Events != 2 {
		t.Fatalf("views after a bare append: %+v", m["s"])
	}
	assertConsistent(t, l)
	if r, err := l.Verify(); err != nil || !r.OK() {
		t.Fatalf("verify %+v %v", r, err)
	}
}
