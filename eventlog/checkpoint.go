package eventlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/hook-loop/hook-loop/eventlog/logline"

	"github.com/tidwall/gjson"
)

// Checkpoints make a cold start cheap. The index is a cache: when it is lost,
// stale or of another version, the views are folded again from the log, which
// at a million events costs seconds. So every few MiB of log a hook that
// appends also appends a checkpoint line: the index snapshot it holds (header,
// heads and views of every session, the project view, the tamper notes) as one
// JSON line, sealed with the log's key like every event line:
//
//	{"hook_loop_checkpoint":1,"header":{…,"offset":N,…},"sessions":[{…},…],"mac":"…"}
//
// A cold start reads the log backwards from its end to the newest checkpoint
// that is valid and folds only the lines after it. A checkpoint is valid when
// its MAC is right under the log's key (so nobody without the key can write
// one), it sits at the very byte offset its header names (so an old checkpoint
// copied to the end of the log cannot roll a session back), the first line of
// the log and the line before it are the ones it recorded (as the index is
// checked), and it holds the views of the Folder reading it. An invalid one is
// passed over for an older one, or for a fold of the whole log. The lines after
// a checkpoint are judged as ever (MAC, chain from the heads it holds), so a
// forged or edited line after it is never honoured; lines before it were judged
// when it was written, and `log verify` still walks and checks every line (and
// holds each checkpoint's heads against its own fold).
//
// A checkpoint is not an event: Scan, the fold and every reader skip it. One
// with a wrong MAC or in the wrong place is noted as tampering (whole-log, not
// of a session); one cut short by a crash is not valid JSON and is skipped like
// any torn line. Its MAC cannot be confused with an index record's: those cover
// bodies with newlines in them, which a log line never has.
const (
	checkpointPrefix  = `{"hook_loop_checkpoint":`
	checkpointVersion = 1
	// checkpointSpacing keeps checkpoints a small part of the log: the next one
	// is due only after this many times its size of log (a project with
	// thousands of sessions has big checkpoints, and fewer of them).
	checkpointSpacing = 8
)

// checkpointEveryBytes is the least log between two checkpoints: the most a cold
// start folds past the newest checkpoint is about this (some 5,000 events, tens
// of milliseconds). A variable for tests.
var checkpointEveryBytes int64 = 2 << 20

// checkpointSearchBytes is the least a fold must read before it looks for a
// checkpoint: below it, folding is as quick. A variable for tests.
var checkpointSearchBytes int64 = 4 << 20

// IsCheckpoint reports whether line (without its newline) is a checkpoint line
// — valid or not, it is not an event, and readers of events skip it.
func IsCheckpoint(line []byte) bool { return bytes.HasPrefix(line, []byte(checkpointPrefix)) }

// nextCheckpoint is the log offset from which a checkpoint is due again, after
// one of size bytes (newline included) that ends at end.
func nextCheckpoint(end int64, size int) int64 {
	return end + max(checkpointEveryBytes, checkpointSpacing*int64(size))
}

// checkpointDue reports whether the Update that leaves the log at st should
// append a checkpoint. A log from an older hook-loop (no checkpoint, the header
// says nothing) gets its first one on its first append once it is big enough.
func (l *Log) checkpointDue(st *state) bool {
	return l.folder != nil && l.key != nil && !st.unverified &&
		st.hdr.Offset >= max(st.hdr.NextCheckpoint, checkpointEveryBytes)
}

// encodeCheckpoint renders st as a checkpoint line (without its newline),
// sealed under key. The line will start at st.hdr.Offset. It is bound to its
// place by that offset, not to the file's identity: a copied or restored log
// keeps its checkpoints.
func (st *state) encodeCheckpoint(key *logKey) ([]byte, error) {
	fid := st.hdr.FileID
	st.hdr.FileID = ""
	body, err := st.encodeBody(true)
	st.hdr.FileID = fid
	if err != nil {
		return nil, err
	}
	nl := bytes.IndexByte(body, '\n')
	out := make([]byte, 0, len(body)+len(checkpointPrefix)+64+logline.MACSuffixLen)
	out = append(out, checkpointPrefix...)
	out = fmt.Appendf(out, `%d,"header":`, checkpointVersion)
	out = append(out, body[:nl]...)
	out = append(out, `,"sessions":[`...)
	for i, rest := 0, body[nl+1:]; len(rest) > 0; i++ {
		n := bytes.IndexByte(rest, '\n')
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, rest[:n]...)
		rest = rest[n+1:]
	}
	out = append(out, ']', '}')
	return key.mac.Seal(out), nil
}

// otherFolderWhy starts checkpointState's answer for a checkpoint (with a right
// MAC) of views another Folder folded.
const otherFolderWhy = "checkpoint holds views folded by "

// checkpointState is the state a checkpoint line holds, the line itself
// folded (so it equals a fold of the log up to and including the line), or
// why the line cannot be used. start is the line's offset in the log file f,
// whose first line and line before start are checked as checkIndex checks.
func (l *Log) checkpointState(f *os.File, line []byte, start int64) (*state, string) {
	if l.key == nil {
		return nil, "the log has no key here"
	}
	if !l.key.mac.Check(line) {
		return nil, "MAC does not match"
	}
	if v := gjson.GetBytes(line, "hook_loop_checkpoint"); v.Int() != checkpointVersion {
		return nil, fmt.Sprintf("checkpoint version %s is not %d", v.Raw, checkpointVersion)
	}
	// The index body it was made from: the header line, then one line per session.
	hdr := gjson.GetBytes(line, "header")
	if !hdr.IsObject() {
		return nil, "checkpoint has no header"
	}
	if name := hdr.Get("folder").String(); l.folder != nil && name != l.folder.Name() {
		return nil, fmt.Sprintf("%s%q, not %q", otherFolderWhy, name, l.folder.Name())
	}
	var data bytes.Buffer
	data.Grow(len(line))
	data.WriteString(hdr.Raw)
	data.WriteByte('\n')
	gjson.GetBytes(line, "sessions").ForEach(func(_, s gjson.Result) bool {
		data.WriteString(s.Raw)
		data.WriteByte('\n')
		return true
	})
	st := newState(l.folder)
	st.raw = data.Bytes()
	st.span = map[string]span{}
	hdrLine, why := st.addSessions(st.raw, 0, len(st.raw), true)
	if why == "" {
		why = st.decodeHeader(hdrLine, l.folder)
	}
	if why != "" {
		return nil, why
	}
	if st.hdr.Offset != start {
		return nil, fmt.Sprintf("checkpoint written at byte %d found at byte %d: copied", st.hdr.Offset, start)
	}
	if why := checkIndex(f, start, "", st); why != "" {
		return nil, why
	}
	st.addLine(line, logline.Hash(line), len(line)+1)
	st.hdr.NextCheckpoint = nextCheckpoint(st.hdr.Offset, len(line)+1)
	return st, ""
}

// newestCheckpoint returns the state of the newest valid checkpoint of the
// log file f (of size bytes) that starts after from, reading backwards from
// the end; nil when there is none or the deadline passed. rejected says why
// the newer candidates were passed over (the first few: lines made to look
// like checkpoints must not flood a hook's output).
func (l *Log) newestCheckpoint(f *os.File, from, size int64, deadline time.Time) (st *state, rejected []string) {
	marker := []byte("\n" + checkpointPrefix)
	const chunk = 1 << 20
	buf := make([]byte, chunk+len(marker))
	passed := 0
	const maxRejected = 4
	defer func() {
		if passed > maxRejected {
			rejected = append(rejected, fmt.Sprintf("and %d more", passed-maxRejected))
		}
	}()
	for end := size; end > from; {
		if expired(deadline) {
			return nil, rejected
		}
		start := max(from, end-chunk)
		b := buf[:min(size, end+int64(len(marker))-1)-start]
		if _, err := f.ReadAt(b, start); err != nil && !errors.Is(err, io.EOF) {
			return nil, rejected
		}
		for hi := len(b); ; {
			i := bytes.LastIndex(b[:hi], marker)
			if i < 0 {
				break
			}
			hi = i + len(marker) - 1
			p := start + int64(i) + 1
			if start+int64(i) >= end || p <= from {
				continue // found in the chunk after, or not after from
			}
			line, ok := lineAt(f, p, size)
			why := "cut short or too long"
			if ok {
				var cp *state
				if cp, why = l.checkpointState(f, line, p); why == "" {
					return cp, rejected
				}
				if strings.HasPrefix(why, otherFolderWhy) {
					// Written by another version of the views (hook-loop was
					// upgraded): older checkpoints are older still.
					return nil, append(rejected, fmt.Sprintf("byte %d: %s", p, why))
				}
			}
			if passed++; passed <= maxRejected {
				rejected = append(rejected, fmt.Sprintf("byte %d: %s", p, why))
			} else if expired(deadline) {
				return nil, rejected
			}
		}
		end = start
	}
	return nil, rejected
}

// lineAt reads the complete line of f starting at off (without its newline).
func lineAt(f io.ReaderAt, off, size int64) ([]byte, bool) {
	for n := int64(64 << 10); ; n = logline.MaxBytes + 1 {
		b := make([]byte, min(n, size-off))
		if _, err := f.ReadAt(b, off); err != nil && !errors.Is(err, io.EOF) {
			return nil, false
		}
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			return b[:i], true
		}
		if int64(len(b)) < n || n > logline.MaxBytes {
			return nil, false
		}
	}
}

// foldCheckpoint accounts for a checkpoint line met while folding (its line
// is added already; start is its offset): a valid one only sets when the next
// is due, anything else claiming to be one is noted as tampering.
func (l *Log) foldCheckpoint(st *state, p *preparedLine, start int64) {
	if l.key == nil {
		// Nothing to check it with (a View without the key): it carries no
		// events, so passing over it changes nothing.
		return
	}
	why := ""
	switch {
	case p.mac != macGood:
		if !json.Valid(p.line) {
			// Cut short by a crash and closed with a newline, like a torn event.
			l.warnLine("%s:%d: skipped: checkpoint line is not valid JSON (a write was interrupted)", l.path, st.hdr.Lines)
			return
		}
		why = "checkpoint MAC does not match the line: forged or edited"
	case gjson.GetBytes(p.line, "header.offset").Int() != start:
		why = fmt.Sprintf("checkpoint written at byte %d found at byte %d: copied", gjson.GetBytes(p.line, "header.offset").Int(), start)
	default:
		st.hdr.NextCheckpoint = nextCheckpoint(st.hdr.Offset, p.size)
		return
	}
	l.warnLine("%s:%d: not honoured: %s", l.path, st.hdr.Lines, why)
	st.hdr.Tampered++
	if len(st.hdr.Tamper) < maxTamperNotes {
		st.hdr.Tamper = append(st.hdr.Tamper, TamperNote{Line: st.hdr.Lines, Reason: why, New: true})
	}
}

// Rebuilding the index within a budget. A log that has no checkpoint near its
// end (written by an older hook-loop, or copied in by `store migrate`) still
// folds whole, and at a million events that takes seconds. A hook must answer
// well inside its harness's timeout (killed, it lets the agent proceed), so
// Update folds for at most its fold budget. When that runs out it saves what it
// folded in the index — a fold of the log's first bytes, exactly what the index
// always holds — and fails with a *FoldBudgetError, which the hook answers as
// fail_closed says; the next run goes on from there, so a few runs complete the
// rebuild, and the first append after it writes a checkpoint. This was chosen
// over deciding on part of the log (wrong state) and over writing a checkpoint
// part-way (a checkpoint must describe everything before it).
//
// The budget is half the lock timeout unless WithFoldBudget sets it: the
// lock timeout is what a hook may wait inside its harness's timeout (Codex's
// SessionEnd gets 1 s of lock wait, so 0.5 s of folding). A View has no budget
// by default: a person's `status` would rather wait than fail.

// ErrFoldBudget is what Update returns, wrapped in a *FoldBudgetError, when
// bringing the index up to date took longer than its fold budget.
var ErrFoldBudget = errors.New("event log fold budget exceeded")

// FoldBudgetError says how far a bounded rebuild of the index got.
type FoldBudgetError struct {
	Path           string // the log
	Folded, Behind int64  // log bytes folded in this run, of those the index lacked
	Budget         time.Duration
}

func (e *FoldBudgetError) Error() string {
	return fmt.Sprintf("index rebuild stopped at its %s budget: the index was missing or behind by %s of log; folded %s and saved that, the next run goes on from there (`hook-loop status` finishes it)",
		e.Budget, mib(e.Behind), mib(e.Folded))
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// Is makes errors.Is(err, ErrFoldBudget) true.
func (e *FoldBudgetError) Is(target error) bool { return target == ErrFoldBudget }

// WithFoldBudget bounds how long Update and View may spend bringing the index
// up to date (d < 0: unbounded; 0: the default, half the lock timeout for
// Update and unbounded for View).
func WithFoldBudget(d time.Duration) Option {
	return func(l *Log) { l.foldBudget = d }
}

// foldDeadline is when a fold starting now must stop (zero: never). Without a
// Folder there is no index to save progress in, so there is no budget either.
func (l *Log) foldDeadline(readOnly bool) time.Time {
	switch {
	case l.folder == nil || l.foldBudget < 0:
		return time.Time{}
	case l.foldBudget > 0:
		return time.Now().Add(l.foldBudget)
	case readOnly:
		return time.Time{}
	}
	return time.Now().Add(l.defaultFoldBudget())
}

func (l *Log) defaultFoldBudget() time.Duration { return l.lockTimeout / 2 }

// effectiveFoldBudget is the budget foldDeadline applied, for messages.
func (l *Log) effectiveFoldBudget(readOnly bool) time.Duration {
	if l.foldBudget > 0 || readOnly {
		return l.foldBudget
	}
	return l.defaultFoldBudget()
}

// keepPending marks which tamper notes the index keeps as not yet reported:
// the new ones when unhanded (no Update's fn has seen them), none otherwise.
func (st *state) keepPending(unhanded bool) {
	for i := range st.hdr.Tamper {
		n := &st.hdr.Tamper[i]
		if p := unhanded && n.New; p != n.Pending {
			n.Pending = p
			st.changed = true
		}
	}
}

func expired(deadline time.Time) bool { return !deadline.IsZero() && time.Now().After(deadline) }
