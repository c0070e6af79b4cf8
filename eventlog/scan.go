package eventlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/hook-loop/hook-loop/eventlog/logline"

	"github.com/tidwall/gjson"
)

// Scan streams every event of the log in file order with its 1-based line number.
// Checkpoint lines are not events: they are skipped without a warning.
// It takes no lock: appends are whole lines written at once, and a line still being
// written looks like a torn tail. A line that is not an event and a torn last line
// are reported through warn ("<path>:<line>: skipped: <why>") and skipped; warn may
// be nil. A missing log has no events. An error from fn stops the scan and is
// returned.
func (l *Log) Scan(warn func(string), fn func(line int, e Event) error) error {
	return l.scanLines(warn, func(sl *scannedLine) error {
		if sl.e == nil {
			return nil
		}
		return fn(sl.n, *sl.e)
	})
}

// ScanRaw is Scan that also hands fn each event's line bytes (valid only during
// the call), for printing the log as it is.
func (l *Log) ScanRaw(warn func(string), fn func(line int, raw []byte, e Event) error) error {
	return l.scanLines(warn, func(sl *scannedLine) error {
		if sl.e == nil {
			return nil
		}
		return fn(sl.n, sl.raw, *sl.e)
	})
}

// scannedLine is one complete line of the log.
type scannedLine struct {
	n     int    // 1-based line number
	raw   []byte // without the newline; nil when over logline.MaxBytes
	hash  string // chain hash ("" when raw is nil)
	start int64  // byte offset of the line
	end   int64  // byte offset just after the newline
	e     *Event // nil when the line is not an event (reported through warn)
	blank bool   // an empty or all-space line: not an event, not reported
	// checkpoint: a checkpoint line (checkpoint.go), not an event, not
	// reported (Verify checks it).
	checkpoint bool
}

// scanLines calls fn for every complete line.
func (l *Log) scanLines(warn func(string), fn func(sl *scannedLine) error) error {
	return l.scanFile(warn, func(*os.File) {}, fn)
}

// scanFile is scanLines that first hands the open log to opened.
func (l *Log) scanFile(warn func(string), opened func(f *os.File), fn func(sl *scannedLine) error) error {
	if warn == nil {
		warn = func(string) {}
	}
	f, _, err := openFile(l.path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open event log: %w", err)
	}
	defer f.Close()
	opened(f)
	lr := logline.NewReader(f)
	for n := 1; ; n++ {
		line, terminated, tooLong, size, err := lr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", l.path, err)
		}
		if !terminated {
			warn(fmt.Sprintf("%s:%d: skipped: torn last line (%d bytes, no newline: a write was interrupted or is in progress)", l.path, n, size))
			return nil
		}
		sl := scannedLine{n: n, start: lr.Consumed() - int64(size), end: lr.Consumed()}
		switch {
		case tooLong:
			warn(fmt.Sprintf("%s:%d: skipped: line longer than %d bytes", l.path, n, logline.MaxBytes))
		case len(bytes.TrimSpace(line)) == 0:
			sl.raw, sl.hash, sl.blank = line, logline.Hash(line), true
		case IsCheckpoint(line):
			sl.raw, sl.hash, sl.checkpoint = line, logline.Hash(line), true
		default:
			sl.raw, sl.hash = line, logline.Hash(line)
			e, perr := logline.Parse(line)
			if perr != nil {
				warn(fmt.Sprintf("%s:%d: skipped: %v", l.path, n, perr))
			} else {
				sl.e = &e
			}
		}
		if err := fn(&sl); err != nil {
			return err
		}
	}
}

// VerifyReport is the result of Verify.
type VerifyReport struct {
	Lines    int // complete lines read
	Events   int // lines that are events
	Sessions int
	Skipped  int // lines that are not events (reported as warnings)
	// BrokenLine is the first line whose prev_hash is not the hash of its session's
	// previous event (0: every chain is intact); BrokenSession is its session,
	// PrevLine the line of that session's previous event (0 if none) and Reason
	// says what that means.
	BrokenLine    int
	BrokenSession string
	PrevLine      int
	Reason        string
	// Warnings are the skipped lines, as Scan reports them.
	Warnings []string
	// Keyed says the log has a key (KeyPath); KeyedAt is its first line with a
	// MAC and Legacy the lines without one honoured before it (logs from before
	// keying). Tampered lists the event lines hook-loop did not write — a wrong
	// or missing MAC, legacy lines changed since keying — which the summaries
	// skip; TamperedCount counts them all when the list is cut.
	Keyed         bool
	KeyPath       string
	KeyedAt       int
	Legacy        int
	Tampered      []TamperNote
	TamperedCount int
}

// OK reports whether every session's chain is intact and every line is
// hook-loop's own.
func (r VerifyReport) OK() bool { return r.BrokenLine == 0 && r.TamperedCount == 0 }

// Verify walks the log and checks every session's hash chain: each event's
// prev_hash must be the hash of the previous event line of its session ("" for
// the first). An edited event breaks the chain at the session's next event, a
// deleted one at the event after the gap, an inserted or copied one at itself or
// at the event that no longer follows its predecessor. The last events of a
// session have no successor to vouch for them, so Verify also holds the log
// against the index, when there is one for this file: each session must still
// have the events, ending in the line, that the index recorded. Verify reports
// the first break and counts on to the end.
func (l *Log) Verify() (VerifyReport, error) {
	var r VerifyReport
	if err := l.loadKey(); err != nil {
		return r, err
	}
	r.Keyed, r.KeyPath = l.key != nil, l.keyPath
	var j *judge
	heads := map[string]*verifyHead{}
	brk := func(line int, session string, prev int, format string, args ...any) {
		if r.BrokenLine == 0 {
			r.BrokenLine, r.BrokenSession, r.PrevLine, r.Reason = line, session, prev, fmt.Sprintf(format, args...)
		}
	}

	// The index is read before the log: the log only grows, so whatever the index
	// covers is in what the scan reads.
	idx := l.indexFor()
	checked := idx == nil
	checkIndex := func(lines int) {
		checked = true
		for _, id := range idx.order {
			want := idx.session(id, false)
			if idx.corrupt != nil {
				return
			}
			h := heads[id]
			if h == nil {
				brk(max(lines, 1), id, 0, "the index recorded %d events of session %q in the first %d bytes, the log has none: they were deleted", want.Events, id, idx.hdr.Offset)
				return
			}
			if h.events != want.Events || h.okHash != want.LastHash {
				brk(h.line, id, 0, "the index recorded %d events of session %q in the first %d bytes, ending in a line with hash %.12s…; the log has %d ending at line %d (hash %.12s…): the session's last events were edited or deleted",
					want.Events, id, idx.hdr.Offset, want.LastHash, h.events, h.line, h.hash)
				return
			}
		}
	}

	opened := func(f *os.File) {
		size := int64(0)
		if fi, err := f.Stat(); err == nil {
			size = fi.Size()
		}
		j = l.judgeFor(f, size)
	}
	err := l.scanFile(func(w string) { r.Warnings = append(r.Warnings, w) }, opened, func(sl *scannedLine) error {
		r.Lines = sl.n
		if !checked && sl.end > idx.hdr.Offset {
			checked = true
			brk(sl.n, "", 0, "the index covers the first %d bytes, but no line ends there: the log was rewritten", idx.hdr.Offset)
		}
		if sl.blank {
			return nil
		}
		if sl.checkpoint {
			verifyCheckpoint(&r, l.path, j, heads, sl, brk)
		} else if sl.e == nil {
			r.Skipped++
		} else {
			e := sl.e
			r.Events++
			h := heads[e.SessionID]
			if h == nil {
				h = &verifyHead{seen: map[string]int{}}
				heads[e.SessionID] = h
			}
			// Honoured as the fold honours it; the chain below runs over every
			// event line, so its reasons tell an edit from an insert or a gap.
			if why := j.verdict(sl.raw, e, sl.start, h.okHash, macUnchecked); why != "" {
				r.TamperedCount++
				if len(r.Tampered) < 1000 {
					r.Tampered = append(r.Tampered, TamperNote{Line: sl.n, Session: e.SessionID, Reason: why})
				}
			} else {
				if e.MAC == "" {
					r.Legacy++
				} else if r.KeyedAt == 0 {
					r.KeyedAt = sl.n
				}
				h.okHash = sl.hash
				h.events++
			}
			if e.PrevHash != h.hash {
				switch {
				case h.line == 0:
					brk(sl.n, e.SessionID, 0, "first event of session %q has prev_hash %.12s…, but no earlier event of the session has that hash: events before it were deleted", e.SessionID, e.PrevHash)
				case e.PrevHash == "":
					brk(sl.n, e.SessionID, h.line, "event has no prev_hash, but session %q has an earlier event at line %d: the line was written without a chain or edited", e.SessionID, h.line)
				case h.seen[e.PrevHash] > 0:
					brk(sl.n, e.SessionID, h.line, "prev_hash points to line %d, not to the session's previous event at line %d: events were inserted, or this line was copied", h.seen[e.PrevHash], h.line)
				default:
					brk(sl.n, e.SessionID, h.line, "prev_hash is not the hash of line %d, the session's previous event: line %d was edited, or an event between lines %d and %d was deleted", h.line, h.line, h.line, sl.n)
				}
			}
			if h.line > 0 {
				h.seen[h.hash] = h.line
			}
			h.hash, h.line = sl.hash, sl.n
		}
		if !checked && sl.end == idx.hdr.Offset {
			checkIndex(sl.n)
		}
		return nil
	})
	if err != nil {
		return r, err
	}
	if !checked {
		brk(r.Lines+1, "", 0, "the log ends before the %d bytes the index covers: events at its end were deleted", idx.hdr.Offset)
	}
	r.Sessions = len(heads)
	return r, nil
}

// verifyHead is what Verify knows of one session at a point of the log.
type verifyHead struct {
	hash   string
	line   int
	events int            // honoured events
	okHash string         // hash of the last honoured event line
	seen   map[string]int // earlier hashes of the session → line
}

// verifyCheckpoint checks a checkpoint line as the fold judges it, and holds
// the heads it recorded against the log's lines before it: a valid checkpoint
// vouches for what hook-loop had folded there, so a line before it that was
// edited or deleted since shows as a break at the checkpoint.
func verifyCheckpoint(r *VerifyReport, path string, j *judge, heads map[string]*verifyHead, sl *scannedLine, brk func(int, string, int, string, ...any)) {
	if j.key == nil {
		return
	}
	tampered := func(why string) {
		r.TamperedCount++
		if len(r.Tampered) < 1000 {
			r.Tampered = append(r.Tampered, TamperNote{Line: sl.n, Reason: why})
		}
	}
	if j.m == nil {
		j.m = j.key.mac.NewMAC()
	}
	if !logline.CheckWith(j.m, sl.raw) {
		if !json.Valid(sl.raw) {
			r.Skipped++
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s:%d: skipped: checkpoint line is not valid JSON (a write was interrupted)", path, sl.n))
			return
		}
		tampered("checkpoint MAC does not match the line: forged or edited")
		return
	}
	if at := gjson.GetBytes(sl.raw, "header.offset").Int(); at != sl.start {
		tampered(fmt.Sprintf("checkpoint written at byte %d found at byte %d: copied", at, sl.start))
		return
	}
	gjson.GetBytes(sl.raw, "sessions").ForEach(func(_, s gjson.Result) bool {
		id := s.Get("id").String()
		events, last := int(s.Get("head.events").Int()), s.Get("head.last_hash").String()
		h := heads[id]
		switch {
		case h == nil || h.events == 0:
			brk(sl.n, id, 0, "the checkpoint at line %d recorded %d events of session %q before it, the log has none: they were deleted", sl.n, events, id)
			return false
		case h.events != events || h.okHash != last:
			brk(sl.n, id, h.line, "the checkpoint at line %d recorded %d events of session %q before it, ending in a line with hash %.12s…; the log has %d ending at line %d: lines before it were edited or deleted", sl.n, events, id, last, h.events, h.line)
			return false
		}
		return true
	})
}

// indexFor returns the index when it is intact and was written for this log file
// (not for one since replaced), else nil.
func (l *Log) indexFor() *state {
	fi, err := os.Stat(l.path)
	if err != nil {
		return nil
	}
	// Under the lock, so no hook replaces the index while it is open (Windows
	// refuses that rename). Without a lock (read-only directory) it is read anyway.
	lock := newLock(l.LockPath())
	if lockWithin(lock, l.lockTimeout) == nil {
		defer lock.Unlock()
	}
	idx, _, err := readIndex(l.IndexPath(), nil, l.key, false)
	if err != nil || idx == nil || idx.hdr.Offset == 0 {
		return nil
	}
	if fid := fileID(fi); fid != "" && idx.hdr.FileID != "" && fid != idx.hdr.FileID {
		return nil
	}
	return idx
}
