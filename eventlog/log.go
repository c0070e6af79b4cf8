package eventlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/hook-loop/hook-loop/eventlog/logline"
)

// TimestampLayout is how Append writes Event.Timestamp: what Python's
// datetime.now(UTC).isoformat() gives (microseconds, "+00:00"), which is also valid
// RFC 3339, so the Python original's readers and Go's time.Parse both accept it.
const TimestampLayout = "2006-01-02T15:04:05.000000-07:00"

// Log is one JSONL event log file. It holds no open files between calls; every
// Update or View opens, locks, reads and closes. A Log is safe for concurrent use.
type Log struct {
	path   string
	folder Folder // nil: no views, and the index is never written
	// light is whether the light parse decodes every payload key folder reads.
	light bool

	mu       sync.Mutex // serialises this process's calls and guards warnings
	warnings []string
	// lineWarnings counts this call's warnings about single lines; past
	// maxLineWarnings they are counted, not kept.
	lineWarnings int

	// tailRead counts log bytes read to bring summaries up to date, for tests that
	// check the normal path reads only what follows the index's offset.
	tailRead int64
	// now is the clock Append uses; tests may pin it.
	now func() time.Time

	lockTimeout time.Duration
	foldBudget  time.Duration // WithFoldBudget; 0: the default (checkpoint.go)
	envWarning  string        // a HOOK_LOOP_LOCK_TIMEOUT that did not parse
	key         *logKey       // once read (a key never changes once created)
	keyPath     string
	cache       *Cache // WithCache; nil: read everything on every call
	// keptIn and kept are, during one Update with a Cache, its entry and
	// what the entry held (load reuses it when the files are untouched).
	keptIn *cacheEntry
	kept   *keptFold
	// unverified is set for a View that found no key: it shows keyed lines
	// unchecked (with a warning) instead of none. Update never does.
	unverified bool
}

// Open returns the log at path, keeping the views of folder f per session and for
// the project. A nil f keeps none: such a Log can scan, verify and append, but it
// leaves the index to a Log that folds (it never writes it). Open does no I/O:
// the directory is created on the first write.
func Open(path string, f Folder, opts ...Option) *Log {
	l := &Log{path: path, folder: f, light: lightCovers(f), now: time.Now}
	l.lockTimeout, l.envWarning = lockTimeoutFromEnv()
	for _, o := range opts {
		o(l)
	}
	return l
}

// Path is the log file's path.
func (l *Log) Path() string { return l.path }

// IndexPath is the index file beside the log.
func (l *Log) IndexPath() string { return l.path + ".idx" }

// LockPath is the lock file beside the log.
func (l *Log) LockPath() string { return l.path + ".lock" }

// Warnings returns what the last Update or View noticed and worked around (a torn
// last line, a skipped line, a rebuilt index), one line each, for the caller to show.
func (l *Log) Warnings() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := append([]string(nil), l.warnings...)
	if n := l.lineWarnings - maxLineWarnings; n > 0 {
		out = append(out, fmt.Sprintf("%s: and %d more lines skipped or not honoured", l.path, n))
	}
	return out
}

// maxLineWarnings is how many warnings about single lines one call keeps: a
// log read where its key is missing has every line not honoured, and one
// warning each would bury the rest.
const maxLineWarnings = 3

// warnLine is warn for a warning about one line of the log.
func (l *Log) warnLine(format string, args ...any) {
	l.lineWarnings++
	if l.lineWarnings <= maxLineWarnings {
		l.warn(format, args...)
	}
}

// Tx is the view of the log inside Update or View. It is valid only during fn.
type Tx struct {
	l        *Log
	st       *state
	readOnly bool
	f        *os.File // the log, for pinning its legacy part when Append creates the key
	size     int64
	pending  bytes.Buffer // staged lines, each with its newline
	staged   int
}

// View is the view of session id, including events appended in this
// transaction; nil when the log has no such session or no Folder. It belongs to
// the transaction: callers copy what they keep.
func (tx *Tx) View(id string) View {
	if s := tx.st.session(id, false); s != nil {
		return s.view
	}
	return nil
}

// ProjectView is the fold of every event in the log; nil without a Folder.
func (tx *Tx) ProjectView() View { return tx.st.project }

// Head is session id's event count and chain head; the zero Head when the log
// has no such session.
func (tx *Tx) Head(id string) Head {
	if s := tx.st.session(id, false); s != nil {
		return s.Head
	}
	return Head{}
}

// Tampered lists the lines of session id (and those concerning the whole log)
// that are not honoured: forged or edited lines, unkeyed lines where the log is
// keyed, replayed lines (TamperNote.Reason says which). The session's summary
// already skips them. New marks the notes found in this call, so a caller
// records each once. The index keeps the first 64 notes of the log and, past
// those, the first of each session, so a session with tampering always has a
// note however many forged lines came before.
func (tx *Tx) Tampered(id string) []TamperNote {
	var out []TamperNote
	for _, n := range tx.st.hdr.Tamper {
		if n.Session == id || n.Session == "" {
			out = append(out, n)
		}
	}
	return out
}

// TamperedLines is how many lines of the whole log are not honoured.
func (tx *Tx) TamperedLines() int { return tx.st.hdr.Tampered }

// SessionIDs lists the log's sessions in first-seen order.
func (tx *Tx) SessionIDs() []string { return append([]string(nil), tx.st.order...) }

// Append fills e's SchemaVersion, EventID and Timestamp when they are empty,
// sets PrevHash to its session's chain head and MAC to the line's MAC under the
// log's key (created now if the log has none), stages it, and returns it as it
// will be written. The event counts in Session and Project at once; it reaches the file
// when Update's fn returns nil.
func (tx *Tx) Append(e Event) (Event, error) {
	if tx.readOnly {
		return Event{}, errors.New("eventlog: Append inside View (read-only)")
	}
	if e.SessionID == "" {
		return Event{}, fmt.Errorf("append to %s: event %q has no session_id", tx.l.path, e.EventType)
	}
	if e.EventType == "" {
		return Event{}, fmt.Errorf("append to %s: event of session %q has no event_type", tx.l.path, e.SessionID)
	}
	if e.SchemaVersion == 0 {
		e.SchemaVersion = SchemaVersion
	}
	if e.EventID == "" {
		e.EventID = NewID()
	}
	if e.Timestamp == "" {
		e.Timestamp = tx.l.now().UTC().Format(TimestampLayout)
	}
	if e.Payload == nil {
		e.Payload = map[string]any{}
	}
	if !utf8.ValidString(e.SessionID) {
		// As it will read back, so the chain head is found under the same id.
		b, _ := json.Marshal(e.SessionID)
		_ = json.Unmarshal(b, &e.SessionID)
	}
	// The chain head, always: a keyed line that does not continue its session's
	// chain is not honoured.
	e.PrevHash, e.MAC = "", ""
	if s := tx.st.session(e.SessionID, false); s != nil {
		e.PrevHash = s.LastHash
	}
	if tx.l.key == nil {
		k, err := createKey(tx.l.keyPath, tx.l.path, tx.f, tx.size)
		if err != nil {
			return Event{}, fmt.Errorf("append to %s: %w", tx.l.path, err)
		}
		tx.l.key = k
	}
	enc, err := logline.Append(nil, &e)
	if err != nil {
		return Event{}, fmt.Errorf("append to %s: encode %s event: %w", tx.l.path, e.EventType, err)
	}
	sealed := tx.l.key.mac.Seal(enc[:len(enc)-1])
	start := tx.pending.Len()
	tx.pending.Write(sealed)
	tx.pending.WriteByte('\n')
	e.MAC = logline.MACOf(sealed)
	line := tx.pending.Bytes()[start:]
	if len(line)-1 > logline.MaxBytes {
		tx.pending.Truncate(start)
		return Event{}, fmt.Errorf("append to %s: %s event is %d bytes, over the %d-byte line limit", tx.l.path, e.EventType, len(line)-1, logline.MaxBytes)
	}
	// Fold the line as a reader will see it, not the caller's values: a string of
	// a named type, invalid UTF-8 or an int in the payload reads back differently,
	// and the summaries must equal a fold of the file. A reader parses a line
	// whose MAC holds without the JSON validator, and so does this.
	stored, err := logline.Decode(line[:len(line)-1], tx.l.light, true)
	if err != nil {
		tx.pending.Truncate(start)
		return Event{}, fmt.Errorf("append to %s: %s event does not read back: %w", tx.l.path, e.EventType, err)
	}
	hash := logline.Hash(line[:len(line)-1])
	tx.st.addLine(line[:len(line)-1], hash, len(line))
	if tx.st.hdr.KeyedAt == 0 {
		tx.st.hdr.KeyedAt = tx.st.hdr.Lines
	}
	tx.st.apply(&stored, hash)
	tx.staged++
	return e, nil
}

// Update runs fn under the log's exclusive lock with summaries brought up to date,
// then writes the events fn appended in one write and updates the index. If fn
// returns an error nothing is written and the error is returned. fn must not call
// Update or View of a Log on the same file: the lock is not reentrant.
func (l *Log) Update(fn func(tx *Tx) error) error { return l.run(false, fn) }

// View runs fn under the lock with up-to-date summaries; Append fails. A missing
// log is an empty one and nothing is created. View never writes the log; it may
// refresh the index (a cache) so the next run has less to read. Where the lock
// cannot be taken (a read-only directory) it reads unlocked, with a warning.
func (l *Log) View(fn func(tx *Tx) error) error { return l.run(true, fn) }

func (l *Log) warn(format string, args ...any) {
	l.warnings = append(l.warnings, fmt.Sprintf(format, args...))
}

// loadKey reads the log's key when it exists (Append creates it).
func (l *Log) loadKey() error {
	if l.key != nil {
		return nil
	}
	if l.keyPath == "" {
		p, err := KeyPath(l.path)
		if err != nil {
			return err
		}
		l.keyPath = p
	}
	k, err := readKey(l.keyPath)
	if err != nil {
		return err
	}
	l.key = k
	return nil
}

// judgeFor is the line judge of one pass over the log file f of size bytes.
func (l *Log) judgeFor(f io.ReaderAt, size int64) *judge {
	j := &judge{key: l.key, unverified: l.unverified}
	if l.key != nil {
		j.legacy = legacyCheck(l.key, f, size)
	}
	return j
}

// tornTail is the end of a log that does not end with a newline.
type tornTail struct {
	line    []byte // nil when tooLong
	size    int
	tooLong bool
}

// load returns the fold of every complete line of the log's first size bytes,
// from the index when it can be trusted, plus the torn fragment at the end, if any.
// With a deadline (not zero) it may stop folding early: the state is then
// partial, a fold of fewer bytes, and torn is nil.
func (l *Log) load(f *os.File, size int64, fid string, deadline time.Time) (*state, *tornTail, error) {
	if st := l.reuseKept(f); st != nil {
		return st, nil, nil
	}
	st, why, err := readIndex(l.IndexPath(), l.folder, l.key, l.unverified)
	if err != nil {
		return nil, nil, err
	}
	if st != nil {
		why = checkIndex(f, size, fid, st)
		if why != "" {
			st = nil
		}
	}
	from := int64(0)
	if st != nil {
		from = st.hdr.Offset
	}
	if size-from >= checkpointSearchBytes && l.key != nil && !l.unverified {
		// A long way to fold: start from the newest checkpoint after the
		// index instead, if there is one.
		cp, rejected := l.newestCheckpoint(f, from, size, deadline)
		for _, r := range rejected {
			l.warn("%s: checkpoint passed over: %s", l.path, r)
		}
		if cp != nil {
			if st == nil {
				if why == "" {
					why = "no index"
				}
				l.warn("%s: index rebuilt from the checkpoint at line %d of the log: %s", l.IndexPath(), cp.hdr.Lines, why)
			}
			st, why = cp, ""
			st.changed = true
		}
	}
	if st == nil {
		st = newState(l.folder)
		st.hdr.FileID = fid
		st.changed = true
		if size > 0 {
			if why == "" {
				why = "no index"
			}
			l.warn("%s: index rebuilt from the whole log: %s", l.IndexPath(), why)
		}
	}
	if st.hdr.FileID != fid {
		st.hdr.FileID = fid
		st.changed = true
	}
	st.foldFrom = st.hdr.Offset
	if st.hdr.Offset == size {
		return st, nil, nil
	}
	st.judge = l.judgeFor(f, size)
	if size-st.hdr.Offset >= parallelFoldBytes {
		if err := l.foldParallel(st, f, size, deadline); err != nil {
			return nil, nil, err
		}
	}
	lr := logline.NewReader(io.NewSectionReader(f, st.hdr.Offset, size-st.hdr.Offset))
	var torn *tornTail
	checked := int64(0)
	for i := 0; ; i++ {
		// At least 1024 lines or 1 MiB a run, so runs out of budget still get
		// somewhere; then a look at the clock every 256 lines or 256 KiB (lines
		// may be long).
		if (i%256 == 0 || lr.Consumed()-checked >= 256<<10) && (i >= 1024 || lr.Consumed() >= 1<<20) {
			checked = lr.Consumed()
			if expired(deadline) {
				st.partial = true
				l.tailRead += lr.Consumed()
				return st, nil, nil
			}
		}
		line, terminated, tooLong, n, err := lr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", l.path, err)
		}
		if !terminated {
			torn = &tornTail{size: n, tooLong: tooLong}
			if !tooLong {
				torn.line = append([]byte(nil), line...)
			}
			break
		}
		if tooLong {
			st.addLine(nil, "", n)
			l.warnLine("%s:%d: skipped: line longer than %d bytes", l.path, st.hdr.Lines, logline.MaxBytes)
			continue
		}
		l.foldLine(st, line, n, true)
	}
	l.tailRead += lr.Consumed()
	return st, torn, nil
}

// foldLine accounts for one line and folds it into st when it is an event
// hook-loop wrote (judge.verdict); a line it did not is noted, not folded.
func (l *Log) foldLine(st *state, line []byte, size int, light bool) {
	if st.judge == nil {
		st.judge = &judge{key: l.key, unverified: l.unverified}
	}
	if st.judge.m == nil {
		st.judge.m = l.lineMAC()
	}
	p := preparedLine{line: line, size: size}
	l.prepare(&p, st.judge.m, light)
	l.foldPrepared(st, &p)
}

// preparedLine is one log line with the work that does not depend on the lines
// before it (hash, MAC, parse), which a cold rebuild does in parallel.
type preparedLine struct {
	line    []byte
	size    int // with the newline
	hash    string
	blank   bool
	tooLong bool
	// checkpoint: a checkpoint line (checkpoint.go), right or not; e is unset.
	checkpoint bool
	e          Event
	err        error
	mac        macChecked
}

// prepare hashes and parses p.line; m, when not nil, is a MAC under the log's
// key to check the line with first.
func (l *Log) prepare(p *preparedLine, m hash.Hash, light bool) {
	p.hash = logline.Hash(p.line)
	if len(bytes.TrimSpace(p.line)) == 0 {
		p.blank = true
		return
	}
	if m != nil {
		p.mac = macBad
		if logline.CheckWith(m, p.line) {
			p.mac = macGood
		}
	}
	if IsCheckpoint(p.line) {
		p.checkpoint = true // not an event: foldCheckpoint judges it
		return
	}
	p.e, p.err = logline.Decode(p.line, light && l.light, p.mac == macGood)
}

// foldPrepared is foldLine's sequential part.
func (l *Log) foldPrepared(st *state, p *preparedLine) {
	if p.tooLong {
		st.addLine(nil, "", p.size)
		l.warnLine("%s:%d: skipped: line longer than %d bytes", l.path, st.hdr.Lines, logline.MaxBytes)
		return
	}
	line, hash := p.line, p.hash
	start := st.hdr.Offset
	st.addLine(line, hash, p.size)
	if p.blank {
		return
	}
	if p.checkpoint {
		l.foldCheckpoint(st, p, start)
		return
	}
	e, err := p.e, p.err
	if err != nil {
		l.warnLine("%s:%d: skipped: %v", l.path, st.hdr.Lines, err)
		return
	}
	last := ""
	if s := st.session(e.SessionID, false); s != nil {
		last = s.LastHash
	}
	if st.judge == nil {
		st.judge = &judge{key: l.key, unverified: l.unverified}
	}
	if why := st.judge.verdict(line, &e, start, last, p.mac); why != "" {
		l.warnLine("%s:%d: not honoured (session %q): %s", l.path, st.hdr.Lines, e.SessionID, why)
		st.hdr.Tampered++
		// Past the cap, a note only for a session the log really has (forged
		// lines may name endless made-up ones) that has none yet.
		if len(st.hdr.Tamper) < maxTamperNotes || (st.session(e.SessionID, false) != nil && !st.hasTamperNote(e.SessionID)) {
			st.hdr.Tamper = append(st.hdr.Tamper, TamperNote{Line: st.hdr.Lines, Session: e.SessionID, Reason: why, New: true})
		}
		return
	}
	if e.MAC == "" {
		st.hdr.Legacy++
	} else if st.hdr.KeyedAt == 0 {
		st.hdr.KeyedAt = st.hdr.Lines
	}
	st.apply(&e, hash)
}

// checkIndex says why st does not describe the log's first st.hdr.Offset bytes,
// or "" when it does. It reads the first and last covered lines only.
func checkIndex(f *os.File, size int64, fid string, st *state) string {
	h := &st.hdr
	if fid != "" && h.FileID != "" && h.FileID != fid {
		return "the log file was replaced"
	}
	if h.Offset > size {
		return fmt.Sprintf("the log shrank to %d bytes, the index covers %d", size, h.Offset)
	}
	if h.Offset == 0 {
		return ""
	}
	lineAt := func(off int64, n int) ([]byte, bool) {
		if off < 0 || n < 0 || off+int64(n)+1 > h.Offset {
			return nil, false
		}
		buf := make([]byte, n+1)
		if _, err := f.ReadAt(buf, off); err != nil || buf[n] != '\n' {
			return nil, false
		}
		return buf[:n], true
	}
	if h.FirstLen >= 0 {
		first, ok := lineAt(0, h.FirstLen)
		if !ok || logline.Hash(first) != h.FirstHash {
			return "the log's first line is not the one indexed (log rewritten)"
		}
	}
	if h.LastLen >= 0 {
		last, ok := lineAt(h.Offset-int64(h.LastLen)-1, h.LastLen)
		if !ok || logline.Hash(last) != h.LastHash {
			return "the log's line at the indexed offset is not the one indexed (log rewritten)"
		}
	} else if _, ok := lineAt(h.Offset-1, 0); !ok {
		return "the indexed offset is not the end of a line (log rewritten)"
	}
	return ""
}
