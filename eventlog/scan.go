package eventlog

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Scan streams every event of the log in file order with its 1-based line number.
// It takes no lock: appends are whole lines written at once, and a line still being
// written looks like a torn tail. A line that is not an event and a torn last line
// are reported through warn ("<path>:<line>: skipped: <why>") and skipped; warn may
// be nil. A missing log has no events. An error from fn stops the scan and is
// returned.
func (l *Log) Scan(warn func(string), fn func(line int, e Event) error) error {
	return l.scanLines(warn, func(line int, raw []byte, hash string, e *Event) error {
		if e == nil {
			return nil
		}
		return fn(line, *e)
	})
}

// ScanRaw is Scan that also hands fn each event's line bytes (valid only during
// the call), for printing the log as it is.
func (l *Log) ScanRaw(warn func(string), fn func(line int, raw []byte, e Event) error) error {
	return l.scanLines(warn, func(line int, raw []byte, hash string, e *Event) error {
		if e == nil {
			return nil
		}
		return fn(line, raw, *e)
	})
}

// scanLines calls fn for every complete line; e is nil for a line that is not an
// event (already reported through warn). hash is the line's chain hash.
func (l *Log) scanLines(warn func(string), fn func(line int, raw []byte, hash string, e *Event) error) error {
	if warn == nil {
		warn = func(string) {}
	}
	f, err := os.Open(l.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open event log: %w", err)
	}
	defer f.Close()
	lr := newLineReader(f)
	for n := 1; ; n++ {
		line, terminated, tooLong, size, err := lr.next()
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
		if tooLong {
			warn(fmt.Sprintf("%s:%d: skipped: line longer than %d bytes", l.path, n, MaxLineBytes))
			if err := fn(n, nil, "", nil); err != nil {
				return err
			}
			continue
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		e, perr := ParseLine(line)
		if perr != nil {
			warn(fmt.Sprintf("%s:%d: skipped: %v", l.path, n, perr))
			if err := fn(n, line, LineHash(line), nil); err != nil {
				return err
			}
			continue
		}
		if err := fn(n, line, LineHash(line), &e); err != nil {
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
}

// OK reports whether every session's chain is intact.
func (r VerifyReport) OK() bool { return r.BrokenLine == 0 }

// Verify walks the log and checks every session's hash chain: each event's
// prev_hash must be the hash of the previous event line of its session ("" for
// the first). An edited event breaks the chain at the session's next event, a
// deleted one at the event after the gap, an inserted or copied one at itself or
// at the event that no longer follows its predecessor. Verify reports the first
// break and counts on to the end; the last event of a session has no successor to vouch for it.
func (l *Log) Verify() (VerifyReport, error) {
	var r VerifyReport
	type head struct {
		hash string
		line int
		seen map[string]int // earlier hashes of the session → line
	}
	heads := map[string]*head{}
	err := l.scanLines(func(w string) { r.Warnings = append(r.Warnings, w) }, func(n int, raw []byte, hash string, e *Event) error {
		r.Lines = n
		if e == nil {
			r.Skipped++
			return nil
		}
		r.Events++
		h := heads[e.SessionID]
		if h == nil {
			h = &head{seen: map[string]int{}}
			heads[e.SessionID] = h
		}
		if e.PrevHash != h.hash && r.BrokenLine == 0 {
			r.BrokenLine, r.BrokenSession, r.PrevLine = n, e.SessionID, h.line
			switch {
			case h.line == 0:
				r.Reason = fmt.Sprintf("first event of session %q has prev_hash %.12s…, but no earlier event of the session has that hash: events before it were deleted", e.SessionID, e.PrevHash)
			case e.PrevHash == "":
				r.Reason = fmt.Sprintf("event has no prev_hash, but session %q has an earlier event at line %d: the line was written without a chain or edited", e.SessionID, h.line)
			case h.seen[e.PrevHash] > 0:
				r.Reason = fmt.Sprintf("prev_hash points to line %d, not to the session's previous event at line %d: events were inserted, or this line was copied", h.seen[e.PrevHash], h.line)
			default:
				r.Reason = fmt.Sprintf("prev_hash is not the hash of line %d, the session's previous event: line %d was edited, or an event between lines %d and %d was deleted", h.line, h.line, h.line, n)
			}
		}
		if h.line > 0 {
			h.seen[h.hash] = h.line
		}
		h.hash, h.line = hash, n
		return nil
	})
	if err != nil {
		return r, err
	}
	r.Sessions = len(heads)
	return r, nil
}
