package eventlog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hook-loop/hook-loop/eventlog/logline"

	"github.com/gofrs/flock"
)

// held is what one Update or View holds while it runs: the lock, the
// Cache's entry, the open log. release lets them go, last taken first.
type held struct {
	lock     *flock.Flock // nil: reading without the lock
	ce       *cacheEntry
	f        *os.File
	fi       fs.FileInfo
	fileKept bool // ce took f: it stays open for the next Update
}

func (h *held) locked() bool { return h.lock != nil }

func (l *Log) release(h *held) {
	if h.f != nil && !h.fileKept {
		h.f.Close()
	}
	l.kept, l.keptIn = nil, nil
	if h.ce != nil {
		h.ce.mu.Unlock()
	}
	if h.lock != nil {
		h.lock.Unlock()
	}
}

// errNoLog is acquire's answer for a View of a log that does not exist.
var errNoLog = errors.New("no log")

func (l *Log) run(readOnly bool, fn func(tx *Tx) error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.warnings, l.lineWarnings = nil, 0
	if l.envWarning != "" {
		l.warn("%s", l.envWarning)
	}
	h := &held{}
	defer l.release(h)
	if err := l.acquire(h, readOnly); errors.Is(err, errNoLog) {
		return fn(&Tx{l: l, st: newState(l.folder), readOnly: true})
	} else if err != nil {
		return err
	}
	st, repair, err := l.loadForTx(h, readOnly)
	if err != nil {
		return err
	}
	tx := &Tx{l: l, st: st, readOnly: readOnly, f: h.f, size: h.fi.Size()}
	if err := fn(tx); err != nil {
		return err
	}
	if st.corrupt != nil {
		// fn saw a wrong summary: write nothing, drop the index so the next run
		// rebuilds it from the log.
		_ = os.Remove(l.IndexPath())
		return fmt.Errorf("%s: %w; removed it, run again", l.IndexPath(), st.corrupt)
	}
	// Every note found is handed to fn; only an Update records them.
	st.keepPending(readOnly)
	if err := l.commit(tx, repair); err != nil {
		return err
	}
	if st.judge != nil && st.judge.trusted > 0 {
		st.unverified = true
	}
	if st.unverified {
		l.warn("%s: MACs not checked: no key at %s (the hooks may keep theirs under another HOME or %s)", l.path, l.keyPath, StateDirEnv)
	}
	h.fileKept = l.finish(st, h, readOnly)
	return nil
}

// acquire takes the lock (an Update fails without it, a View reads
// unlocked), the Cache's entry, the key and the open log into h. A View of
// a log that does not exist is errNoLog: nothing is created.
func (l *Log) acquire(h *held, readOnly bool) error {
	// Nothing was ever written: do not create a directory to look at nothing.
	if exists, err := ensureDir(filepath.Dir(l.path), !readOnly); err != nil {
		return err
	} else if !exists {
		return errNoLog
	}
	lock := newLock(l.LockPath())
	if err := lockWithin(lock, l.lockTimeout); err != nil {
		if !readOnly {
			var lt *LockTimeoutError
			if errors.As(err, &lt) {
				return err
			}
			return fmt.Errorf("lock %s: %w", l.LockPath(), err)
		}
		// A read-only checkout (or a held lock) can still be looked at: appends
		// are whole lines, and the index is not written without the lock.
		l.warn("%s: reading without the lock: %v", l.path, err)
	} else {
		h.lock = lock
	}
	if l.cache != nil && h.locked() && !readOnly && l.folder != nil {
		h.ce = l.cache.acquire(l.path, l.folder.Name())
	}
	l.kept = h.ce.takeKept()
	if l.kept != nil && !l.kept.restoreKey(l) {
		l.kept.closeFile()
		l.kept = nil
	}
	l.keptIn = h.ce
	if err := l.loadKey(); err != nil {
		return err
	}
	l.unverified = readOnly && l.key == nil
	return l.openLog(h, readOnly)
}

// openLog opens the log into h. The FileInfo is of the open file: openFile
// refuses links and non-regular files, and this is the identity the index
// records. The file the last Update kept open is that file still when the
// path names it (not a link, the same regular file); only an Update has one
// (l.kept).
func (l *Log) openLog(h *held, readOnly bool) error {
	if f, fi, ok := l.kept.takeFile(l.path); ok {
		h.f, h.fi = f, fi
		return nil
	}
	flag := os.O_RDONLY
	if !readOnly {
		flag = os.O_RDWR | os.O_CREATE | os.O_APPEND
		logOpens.Add(1)
	}
	f, fi, err := openFile(l.path, flag, 0o644)
	if errors.Is(err, fs.ErrNotExist) && readOnly {
		return errNoLog
	}
	if err != nil {
		return fmt.Errorf("open event log: %w", err)
	}
	h.f, h.fi = f, fi
	return nil
}

// loadForTx brings the fold up to the end of the open log. A torn last
// line (a write cut short by a crash) is, in an Update, to be closed with a
// newline before anything else is written (repair), so new events start on
// a fresh line; the fragment then is an ordinary line: folded if it happens
// to be a complete event, skipped like any other bad line if not.
func (l *Log) loadForTx(h *held, readOnly bool) (st *state, repair bool, err error) {
	size := h.fi.Size()
	st, torn, err := l.load(h.f, size, fileID(h.fi), l.foldDeadline(readOnly))
	if err != nil {
		return nil, false, err
	}
	if st.partial {
		// Out of fold budget (checkpoint.go): keep what was folded for the next
		// run, and answer without running fn on part of the log.
		behind := size - st.foldFrom
		if h.locked() && l.folder != nil && !st.unverified {
			st.keepPending(true)
			if err := writeIndex(l.IndexPath(), st, l.key); err != nil {
				l.warn("%v", err)
			}
		}
		return nil, false, &FoldBudgetError{Path: l.path, Folded: st.hdr.Offset - st.foldFrom, Behind: behind, Budget: l.effectiveFoldBudget(readOnly)}
	}
	if torn == nil {
		return st, false, nil
	}
	if readOnly {
		l.warn("%s:%d: skipped: torn last line (%d bytes, no newline: a write was interrupted)", l.path, st.hdr.Lines+1, torn.size)
		return st, false, nil
	}
	l.warn("%s:%d: torn last line (%d bytes, no newline: a write was interrupted) closed with a newline", l.path, st.hdr.Lines+1, torn.size)
	if torn.tooLong {
		st.addLine(nil, "", torn.size+1)
	} else {
		l.foldLine(st, torn.line, torn.size+1, true)
	}
	return st, true, nil
}

// commit writes what tx staged (and a checkpoint when one is due, and the
// newline that closes a torn line) to the log in one write.
func (l *Log) commit(tx *Tx, repair bool) error {
	st := tx.st
	var checkpoint []byte
	if tx.staged > 0 && l.checkpointDue(st) {
		checkpoint = l.stageCheckpoint(tx)
	}
	if tx.staged == 0 && !repair {
		return nil
	}
	buf := tx.pending.Bytes()
	if repair {
		buf = append([]byte{'\n'}, buf...)
	}
	if _, err := tx.f.Write(buf); err != nil {
		// Take back a partial write so the log keeps only whole events; we hold
		// the lock, so nobody appended after us.
		terr := tx.f.Truncate(tx.size)
		if terr != nil {
			// Windows opens an O_APPEND file without the right to truncate it.
			terr = os.Truncate(l.path, tx.size)
		}
		if terr != nil {
			return fmt.Errorf("append %d events to %s: %w (and could not remove the partial write: %v)", tx.staged, l.path, err, terr)
		}
		return fmt.Errorf("append %d events to %s: %w", tx.staged, l.path, err)
	}
	if checkpoint != nil {
		st.addLine(checkpoint, logline.Hash(checkpoint), len(checkpoint)+1)
		st.hdr.NextCheckpoint = nextCheckpoint(st.hdr.Offset, len(checkpoint)+1)
	}
	return nil
}

// stageCheckpoint adds to tx's pending lines the state after its events,
// which start the checkpoint line's offset, and returns the line; nil when
// none is written this time.
func (l *Log) stageCheckpoint(tx *Tx) []byte {
	st := tx.st
	cp, err := st.encodeCheckpoint(l.key)
	switch {
	case err != nil:
		l.warn("%s: checkpoint not written: %v", l.path, err)
		return nil
	case len(cp) > logline.MaxBytes:
		// Too many sessions for one line: none for a long while; a cold
		// start then folds more, within its budget.
		st.hdr.NextCheckpoint = nextCheckpoint(st.hdr.Offset, len(cp)+1)
		st.changed = true
		return nil
	}
	tx.pending.Write(cp)
	tx.pending.WriteByte('\n')
	return cp
}

// finish writes the index of st and keeps the fold in h's Cache entry, as
// the end of every run that reached it. It reports whether the entry took
// the open log (which the run then leaves open).
func (l *Log) finish(st *state, h *held, readOnly bool) bool {
	if st.changed && h.locked() && l.folder != nil && !st.unverified {
		// The log is the truth and is written; if the index cannot be, the next run
		// replays what it missed. A View only offers its work to the next run: a
		// read-only checkout must not make every look at it noisy.
		if err := writeIndex(l.IndexPath(), st, l.key); err != nil {
			if !readOnly {
				l.warn("%v", err)
			}
			return false
		}
	}
	if h.ce != nil && l.folder != nil && !st.unverified {
		return h.ce.keep(l, st, h.f, h.fi, !readOnly)
	}
	return false
}
