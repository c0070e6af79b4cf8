package eventlog

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// A log read under another state directory (no key for its MACs) has every
// line not honoured: the warnings name a few and count the rest, instead of
// one each.
func TestLineWarningsAreCapped(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".hook-loop", "events.jsonl")
	l := openTest(path)
	if err := l.Update(func(tx *Tx) error {
		for i := range 300 {
			if _, err := tx.Append(Event{SessionID: fmt.Sprintf("s%d", i%3), EventType: TypeHookFired}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	t.Setenv(StateDirEnv, t.TempDir())
	l = openTest(path)
	if err := l.Update(func(tx *Tx) error { return nil }); err != nil {
		t.Fatal(err)
	}
	ws := l.Warnings()
	lines := 0
	for _, w := range ws {
		if strings.Contains(w, ": not honoured (") {
			lines++
		}
	}
	if lines != 3 {
		t.Errorf("%d warnings about single lines, want 3: %q", lines, ws)
	}
	want := fmt.Sprintf("%s: and %d more lines skipped or not honoured", path, 300-3)
	if !strings.Contains(strings.Join(ws, "\n"), want) {
		t.Errorf("warnings %q do not say %q", ws, want)
	}
	if n := len(strings.Join(ws, "\n")); n > 2000 {
		t.Errorf("warnings are %d bytes", n)
	}
}
