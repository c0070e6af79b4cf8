package eventlog

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
)

// A cold rebuild folds in parallel above parallelFoldBytes; it must come to
// the very index and warnings the one-goroutine fold does, on a log with a
// forged line, a line that is not JSON, a blank line and a torn end.
func TestParallelFoldMatchesSequential(t *testing.T) {
	l := newLog(t)
	var evs []Event
	for i := range 3000 {
		evs = append(evs, ev(fmt.Sprint("s", i%5), TypeHookFired, fmt.Sprint("st", i), map[string]any{"pad": strings.Repeat("x", i%300)}))
	}
	appendAll(t, l, evs[:1500]...)
	appendAll(t, l, evs[1500:]...)
	b, _ := os.ReadFile(l.Path())
	lines := bytes.SplitAfter(b, []byte("\n"))
	lines[700] = bytes.Replace(lines[700], []byte(`"state":"st700"`), []byte(`"state":"stXXX"`), 1)
	lines[1200] = []byte("not json\n")
	lines[2100] = []byte("\n")
	b = append(bytes.Join(lines, nil), `{"torn":`...)
	os.WriteFile(l.Path(), b, 0o644)

	fold := func(min int64) ([]byte, []string) {
		old := parallelFoldBytes
		parallelFoldBytes = min
		defer func() { parallelFoldBytes = old }()
		os.Remove(l.IndexPath())
		l.warnings = nil
		if err := l.View(func(*Tx) error { return nil }); err != nil {
			t.Fatal(err)
		}
		idx, _ := os.ReadFile(l.IndexPath())
		return idx, l.Warnings()
	}
	seqIdx, seqWarn := fold(1 << 40)
	parIdx, parWarn := fold(1)
	if !bytes.Equal(seqIdx, parIdx) {
		t.Errorf("indexes differ:\n%s\n%s", seqIdx, parIdx)
	}
	if strings.Join(seqWarn, "\n") != strings.Join(parWarn, "\n") {
		t.Errorf("warnings differ:\n%q\n%q", seqWarn, parWarn)
	}
	if w := strings.Join(parWarn, "\n"); !strings.Contains(w, "MAC does not match") || !strings.Contains(w, "more lines skipped or not honoured") || !strings.Contains(w, "torn last line") {
		t.Errorf("warnings %q", parWarn)
	}
}
