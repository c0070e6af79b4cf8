package eventlog

import (
	"io/fs"
	"os"
	"sync"
	"sync/atomic"
)

// Cache keeps, across the Updates of one long-lived process (the hook
// co-process, internal/serve), what an Update read: the log's key and the fold
// of the log as the Update left it. The next Update of the same log and Folder
// reuses that fold instead of reading the index and the log again, provided
// nothing else touched them since; otherwise it reads them as every Update does.
//
// "Nothing else touched them" is decided under the log's lock (every writer
// holds it) from what the Update that kept the fold saw last, after its own
// writes, also under the lock:
//
//   - the log file: the same file (device and inode, so a log moved aside or
//     restored is another one), the same size (any append, torn or whole, grows
//     it; a truncation shrinks it), the same modification and change times (a
//     truncation and rewrite to the very same size moves them; the change time
//     cannot be set back from user space), and, as a one-shot hook checks its
//     index, the same first line and the same line at the end (two small reads:
//     they catch a same-size rewrite even within one timestamp tick, unless it
//     kept both lines);
//   - the index file: the same file, size and times (a hook of another
//     process that appended only to the index, a View's refresh, a compaction,
//     a removal or an edit moves one of them): the kept fold's bookkeeping of
//     the index (where the next delta goes, the MAC it chains to) holds only
//     for the very file it wrote;
//   - the key file: the same file, size and times, else the key is read again
//     and the fold is dropped (its verdicts were made under the old key).
//
// Any doubt, and the Update reads the index and the log as a one-shot hook
// would, so the decisions, the lock and the log are the same with or without
// a Cache. An Update that fails, runs out of fold budget, finds a wrong index
// entry, or cannot write its index keeps nothing. A View neither uses nor keeps
// the fold. Where file times are not available (not Linux or macOS) nothing is
// kept. A Cache is safe for concurrent use; each log's fold serves one Update
// at a time, and an Update that finds it in use reads the log itself.
type Cache struct {
	mu      sync.Mutex
	entries map[cacheKey]*cacheEntry
}

// NewCache returns an empty Cache.
func NewCache() *Cache { return &Cache{entries: map[cacheKey]*cacheEntry{}} }

// WithCache makes the Log keep its fold in c across Updates (see Cache).
func WithCache(c *Cache) Option { return func(l *Log) { l.cache = c } }

// CacheStats counts the Updates of one log that ran with a Cache: Reused those
// that took the kept fold, Loaded those that read the index and the log.
type CacheStats struct{ Reused, Loaded int }

// Stats is what the Updates of the log at path did with c (tests, benchmarks).
func (c *Cache) Stats(path string) CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	var s CacheStats
	for k, e := range c.entries {
		if k.path == path {
			e.mu.Lock()
			s.Reused += e.stats.Reused
			s.Loaded += e.stats.Loaded
			e.mu.Unlock()
		}
	}
	return s
}

// maxCacheEntries bounds the logs a Cache keeps a fold of: a co-process serves
// one project, or a few (pi names the log per request); past this it starts over.
const maxCacheEntries = 32

// maxKeptSessions bounds the sessions a kept fold holds decoded: each index
// delta repeats every decoded session, so past this the fold is dropped and the
// next Update decodes only the session it touches.
const maxKeptSessions = 8

// indexReads counts readIndex calls, for tests that check a Cache spares them.
var indexReads atomic.Int64

// logOpens counts the opens of a log by an Update, for tests that check a
// Cache spares them.
var logOpens atomic.Int64

type cacheKey struct{ path, folder string }

type cacheEntry struct {
	mu    sync.Mutex
	kept  *keptFold
	stats CacheStats
}

// keptFold is what an Update left: its fold and the signatures of the files
// it was folded from, taken under the lock after the Update's writes.
type keptFold struct {
	st                  *state
	log, index, keyFile fileSig
	key                 *logKey
	keyPath             string
	stateDir            string // KeyPath's StateDir when keyPath was found
	// file is the log, left open for writing by the Update that kept the
	// fold, with its identity: the next Update takes it when the log's path
	// still names that file (stillAt), and spares the open — the largest of
	// a served hook's system calls, as it creates the file when missing.
	file     *os.File
	fileInfo fs.FileInfo
}

// closeFile closes the kept log file, if any.
func (k *keptFold) closeFile() {
	if k != nil && k.file != nil {
		k.file.Close()
		k.file = nil
	}
}

// takeFile returns the kept log file when path still names it; any other
// kept file is closed. Either way k holds no file after.
func (k *keptFold) takeFile(path string) (*os.File, fs.FileInfo, bool) {
	if k == nil || k.file == nil {
		return nil, nil, false
	}
	f := k.file
	k.file = nil
	if now, ok := stillAt(path, k.fileInfo); ok {
		return f, now, true
	}
	f.Close()
	return nil, nil, false
}

// acquire returns the entry of the log and Folder, locked, or nil when another
// Update of this process is using it.
func (c *Cache) acquire(path, folder string) *cacheEntry {
	c.mu.Lock()
	k := cacheKey{path, folder}
	e := c.entries[k]
	if e == nil {
		if len(c.entries) >= maxCacheEntries {
			for _, old := range c.entries {
				// An entry in use keeps its file until the GC closes it.
				if old.mu.TryLock() {
					old.kept.closeFile()
					old.mu.Unlock()
				}
			}
			clear(c.entries)
		}
		e = &cacheEntry{}
		c.entries[k] = e
	}
	c.mu.Unlock()
	if !e.mu.TryLock() {
		return nil
	}
	return e
}

// takeKept empties the entry and returns what it held: a fold handed to an
// Update is the Update's to change, and is back only if the Update succeeds.
func (e *cacheEntry) takeKept() *keptFold {
	if e == nil {
		return nil
	}
	k := e.kept
	e.kept = nil
	return k
}

// restoreKey gives l the kept key when the key file is the one it was read
// from; it returns false (and l reads the key itself) otherwise.
func (k *keptFold) restoreKey(l *Log) bool {
	if k == nil || k.key == nil || k.stateDir != StateDir() {
		return false
	}
	sig, ok := lstatSig(k.keyPath)
	if !ok || sig != k.keyFile {
		return false
	}
	l.key, l.keyPath = k.key, k.keyPath
	return true
}

// reuseKept is l.reuse of what the Update's cache entry held, counted; it
// empties l.kept either way.
func (l *Log) reuseKept(f *os.File) *state {
	k, ce := l.kept, l.keptIn
	l.kept = nil
	if ce == nil {
		return nil
	}
	var st *state
	if k != nil {
		st = l.reuse(k, f)
	}
	if st != nil {
		ce.stats.Reused++
	} else {
		ce.stats.Loaded++
	}
	return st
}

// reuse returns the kept fold when the open log file f and the index are
// still exactly what the fold was kept from, made ready for a new Update as
// readIndex would leave it; nil otherwise.
func (l *Log) reuse(k *keptFold, f *os.File) *state {
	fi, err := f.Stat()
	if err != nil {
		return nil
	}
	sig, ok := fileSigOf(fi)
	if !ok || sig != k.log {
		return nil
	}
	if isig, ok := lstatSig(l.IndexPath()); !ok || isig != k.index {
		return nil
	}
	// The file's identity is in sig; the lines are checked as a one-shot
	// hook checks its index.
	st := k.st
	if st.hdr.Offset != fi.Size() || checkIndex(f, fi.Size(), "", st) != "" {
		return nil
	}
	st.changed, st.partial, st.judge, st.corrupt = false, false, nil, nil
	st.foldFrom = st.hdr.Offset
	// As decodeHeader leaves them: notes an Update has handed over are not new.
	for i := range st.hdr.Tamper {
		st.hdr.Tamper[i].New = st.hdr.Tamper[i].Pending
	}
	return st
}

// keep stores the fold st that an Update of l left in the log file f, once
// its writes (log and index) are done, with the files' signatures.
//
// With keepFile (f was opened for an Update), f itself is kept for the next
// Update, and keep reports whether it took it: the caller then must not
// close it.
func (e *cacheEntry) keep(l *Log, st *state, f *os.File, fid fs.FileInfo, keepFile bool) bool {
	if len(st.sess) > maxKeptSessions || l.key == nil {
		return false
	}
	fi, err := f.Stat()
	if err != nil || fi.Size() != st.hdr.Offset {
		return false
	}
	k := &keptFold{st: st, key: l.key, keyPath: l.keyPath, stateDir: StateDir()}
	var ok1, ok2, ok3 bool
	k.log, ok1 = fileSigOf(fi)
	k.index, ok2 = lstatSig(l.IndexPath())
	k.keyFile, ok3 = lstatSig(l.keyPath)
	if !ok1 || !ok2 || !ok3 {
		return false
	}
	e.kept = k
	if keepFile && fileID(fid) != "" {
		k.file, k.fileInfo = f, fid
		return true
	}
	return false
}

// indexAppended brings st's bookkeeping of the index file up to date after rec
// was appended to it: what readIndex of the file would now say.
func (st *state) indexAppended(rec []byte) {
	st.appendAt += int64(len(rec))
	st.deltaBytes += len(rec)
	st.deltas++
	st.setLastMAC(rec)
}

// indexReplaced is indexAppended for a compaction: data is the whole file.
func (st *state) indexReplaced(data []byte) {
	st.appendAt = int64(len(data))
	st.baseBytes = len(data)
	st.deltaBytes, st.deltas = 0, 0
	st.setLastMAC(data)
}

// setLastMAC takes the MAC from the stamp of the record that starts rec; a
// stamp that does not read back (never seen) makes the next write a compaction.
func (st *state) setLastMAC(rec []byte) {
	stamp, _, _, why := nextRecord(rec, 0)
	if why != "" {
		st.appendAt = 0
		return
	}
	st.lastMAC = stamp.MAC
}
