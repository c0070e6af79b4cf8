package eventlog

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
)

// indexRecords splits l's index into its records (stamp line and body).
func indexRecords(t *testing.T, l *Log) [][]byte {
	t.Helper()
	b, err := os.ReadFile(l.IndexPath())
	if err != nil {
		t.Fatal(err)
	}
	var recs [][]byte
	for pos := 0; pos < len(b); {
		_, _, end, why := nextRecord(b, pos)
		if why != "" {
			t.Fatalf("record at %d: %s", pos, why)
		}
		recs = append(recs, b[pos:end])
		pos = end
	}
	return recs
}

// Each hook appends one small record instead of rewriting the index; once the
// deltas outgrow the snapshot the index is compacted to one snapshot again.
func TestIndexDeltasAndCompaction(t *testing.T) {
	l := newLog(t)
	appendAll(t, l, ev("a", TypeHookFired, "x", nil))
	if n := len(indexRecords(t, l)); n != 1 {
		t.Fatalf("%d records after the first write", n)
	}
	appendAll(t, l, ev("b", TypeHookFired, "y", nil))
	appendAll(t, l, ev("a", TypeHookFired, "z", nil))
	recs := indexRecords(t, l)
	if len(recs) != 3 {
		t.Fatalf("%d records after three writes", len(recs))
	}
	if bytes.Contains(recs[2], []byte(`"id":"b"`)) || !bytes.Contains(recs[2], []byte(`"id":"a"`)) {
		t.Fatalf("delta holds other sessions than the one written: %s", recs[2])
	}
	assertConsistent(t, l)
	compacted := false
	for i := range maxDeltas + 2 {
		appendAll(t, l, ev(fmt.Sprint("s", i%3), TypeHookFired, "x", nil))
		if len(indexRecords(t, l)) == 1 {
			compacted = true
		}
	}
	if !compacted {
		t.Fatal("the index was never compacted")
	}
	if w := l.Warnings(); len(w) != 0 {
		t.Fatalf("warnings %q", w)
	}
	assertConsistent(t, l)
}

// A delta cut short by a crash ends the index before it: the older state is
// taken without a rebuild, the log's later lines are folded, and the next write
// compacts.
func TestIndexTornDelta(t *testing.T) {
	l := newLog(t)
	appendAll(t, l, ev("a", TypeHookFired, "x", nil), ev("b", TypeHookFired, "y", nil))
	appendAll(t, l, ev("a", TypeHookFired, "z", nil))
	b, _ := os.ReadFile(l.IndexPath())
	recs := indexRecords(t, l)
	if len(recs) != 2 {
		t.Fatalf("%d records", len(recs))
	}
	last := len(b) - len(recs[len(recs)-1])
	for _, cut := range []int{last + 3, len(b) - 5} {
		os.WriteFile(l.IndexPath(), b[:cut], 0o644)
		if err := l.View(func(tx *Tx) error {
			if s := sessionOf(tx, "a"); s.State != "z" || s.Events != 2 {
				t.Errorf("a: %+v", s)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if w := l.Warnings(); len(w) != 0 {
			t.Fatalf("cut at %d: warnings %q", cut, w)
		}
		// The View brought the index up to date: compacted, not appended after
		// the torn record.
		if n := len(indexRecords(t, l)); n != 1 {
			t.Fatalf("%d records after writing over a torn delta, want a compacted 1", n)
		}
	}
	appendAll(t, l, ev("b", TypeHookFired, "w", nil))
	assertConsistent(t, l)
}

// A delta edited (CRC fixed, as anyone can) or dropped from between others
// fails its MAC: the index is not trusted.
func TestIndexDeltaEdited(t *testing.T) {
	build := func(t *testing.T) (*Log, [][]byte) {
		l := newLog(t)
		appendAll(t, l, ev("a", TypeHookFired, "x", nil))
		appendAll(t, l, ev("a", TypeHookFired, "y", nil))
		appendAll(t, l, ev("b", TypeHookFired, "z", nil))
		return l, indexRecords(t, l)
	}
	t.Run("edited", func(t *testing.T) {
		l, recs := build(t)
		stamp, body, _, _ := nextRecord(recs[1], 0)
		body = bytes.ReplaceAll(body, []byte(`"state":"y"`), []byte(`"state":"q"`))
		forged, _ := record(indexStamp{MAC: stamp.MAC}, body, nil, "")
		forged = bytes.Replace(forged, []byte(`"crc32"`), []byte(`"mac":"`+stamp.MAC+`","crc32"`), 1)
		os.WriteFile(l.IndexPath(), bytes.Join([][]byte{recs[0], forged, recs[2]}, nil), 0o644)
		l.View(func(tx *Tx) error { return nil })
		if w := strings.Join(l.Warnings(), "\n"); !strings.Contains(w, "index MAC does not match") {
			t.Fatalf("warnings %q", w)
		}
	})
	t.Run("dropped", func(t *testing.T) {
		l, recs := build(t)
		os.WriteFile(l.IndexPath(), bytes.Join([][]byte{recs[0], recs[2]}, nil), 0o644)
		l.View(func(tx *Tx) error { return nil })
		if w := strings.Join(l.Warnings(), "\n"); !strings.Contains(w, "index MAC does not match") {
			t.Fatalf("warnings %q", w)
		}
		assertConsistent(t, l)
	})
}
