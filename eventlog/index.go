package eventlog

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"io/fs"
	"os"

	"github.com/tidwall/gjson"
)

// The index is JSON lines in records. The first record is a snapshot: a stamp
// (format, version, body length, CRC-32 and MAC of the body), a header object,
// then one object per session in first-seen order. Each hook then appends a
// delta record of the same shape — stamp, the new header, the lines of the
// sessions it touched — instead of rewriting the file: one small write, no temp
// file and rename per event. A later line of a session replaces its earlier ones.
// Once the deltas outgrow the snapshot the next hook compacts the file into one
// snapshot again (temp file and rename, as every hook used to).
//
// It holds one head and one view per session, never anything per event, so it
// stays small however long the log grows. It is a cache: any doubt about it and
// the log is folded again. A delta cut short by a crash (shorter than its stamp
// says, or failing its CRC) ends the index where the last whole record ends —
// an older but true state, which the log's later lines bring up to date — and
// the next write compacts. Each record's MAC covers the previous record's MAC
// and its own body, so deltas cannot be dropped from the middle, reordered or
// taken from another index.
const (
	indexFormat = "hook-loop-eventlog-index"
	// 2: views of a Folder instead of built-in summaries; 3: keyed log (MAC,
	// key_at, legacy, tamper notes); 4: appended delta records, IEEE CRC.
	indexVersion = 4
	// compactMinBytes is how large the deltas may grow before a compaction even
	// when the snapshot is smaller; maxDeltas bounds the records read per hook.
	compactMinBytes = 32 << 10
	maxDeltas       = 16
)

// indexStamp is the first line of each record of the index file.
type indexStamp struct {
	Format  string `json:"format,omitempty"` // snapshot only
	Version int    `json:"version,omitempty"`
	Len     int    `json:"len"`   // body bytes after this line
	CRC     uint32 `json:"crc32"` // IEEE, of the body: a torn write, not an attack
	// MAC is the HMAC-SHA256 under the log's key of the previous record's MAC
	// (none for the snapshot) and the body: an index is a cache of states, and
	// an edited one must not claim any.
	MAC string `json:"mac,omitempty"`
}

// indexHeader is the second line of the index file.
type indexHeader struct {
	// Offset is the number of log bytes the summaries cover; always the end of a
	// line. Lines is how many lines those bytes hold (for line numbers).
	Offset int64 `json:"offset"`
	Lines  int   `json:"lines"`
	// The first and last covered line, checked against the log on every load so a
	// log that was truncated, rewritten or replaced is noticed with two small reads.
	FirstLen  int    `json:"first_len"`
	FirstHash string `json:"first_hash"`
	LastLen   int    `json:"last_len"`
	LastHash  string `json:"last_hash"`
	FileID    string `json:"file_id,omitempty"`
	Sessions  int    `json:"sessions"`
	// Folder is the Name of the Folder whose views the index holds.
	Folder  string `json:"folder"`
	Project any    `json:"project,omitempty"` // a View when written; json.RawMessage when read
	// KeyedAt is the first line with a MAC (0: none yet), Legacy the honoured
	// event lines without one, Tampered the lines not honoured and Tamper the
	// first maxTamperNotes of them.
	KeyedAt  int          `json:"keyed_at,omitempty"`
	Legacy   int          `json:"legacy,omitempty"`
	Tampered int          `json:"tampered,omitempty"`
	Tamper   []TamperNote `json:"tamper,omitempty"`
	// NextCheckpoint is the offset from which the next append writes a
	// checkpoint into the log (checkpoint.go); 0: none written yet.
	NextCheckpoint int64 `json:"next_checkpoint,omitempty"`
}

// indexSession is one session line. View is a View when written (encoded with
// the line, no second pass) and a json.RawMessage when read (decoded into the
// Folder's view type).
type indexSession struct {
	ID   string `json:"id"`
	Head Head   `json:"head"`
	View any    `json:"view,omitempty"`
}

// state is the fold of the log's first Offset bytes.
type state struct {
	hdr    indexHeader
	folder Folder // nil: heads only, no views
	order  []string
	// sess holds the sessions decoded so far. A session read from the index is
	// decoded only when asked for: a hook touches one session, and a project log
	// may hold thousands. Sessions never decoded are written back as they were.
	sess    map[string]*entry
	project View            // nil without a folder
	raw     []byte          // the index's session lines
	span    map[string]span // where each indexed session's line is in raw
	// corrupt is set when an indexed line does not decode despite its checksum.
	corrupt error
	changed bool // differs from the index file
	judge   *judge
	// unverified: a MAC'd index or keyed lines were taken on trust (View
	// without the key).
	unverified bool
	// Where the index file read ends, when it can take another delta record:
	// its size, the last record's MAC, and the sizes of snapshot and deltas.
	// appendAt 0: rewrite it whole.
	appendAt   int64
	lastMAC    string
	baseBytes  int
	deltaBytes int
	deltas     int
	// partial: the fold stopped at its deadline before the end of the log;
	// foldFrom is where this run's fold started.
	partial  bool
	foldFrom int64
}

type span struct{ start, end int } // end excludes the newline

func newState(f Folder) *state {
	st := &state{sess: map[string]*entry{}, folder: f}
	if f != nil {
		st.hdr.Folder = f.Name()
		st.project = f.NewView()
	}
	return st
}

// newEntry is an empty session.
func (st *state) newEntry() *entry {
	s := &entry{}
	if st.folder != nil {
		s.view = st.folder.NewView()
	}
	return s
}

// session returns the entry of id, creating it (in first-seen order) when create.
func (st *state) session(id string, create bool) *entry {
	if s, ok := st.sess[id]; ok {
		return s
	}
	if sp, ok := st.span[id]; ok {
		s := st.newEntry()
		// One decode: the line's view goes straight into the Folder's type.
		gotID, head, _, err := decodeSession(st.raw[sp.start:sp.end], s.view)
		s.Head = head
		if (err != nil || gotID != id) && st.corrupt == nil {
			st.corrupt = fmt.Errorf("index entry of session %q does not decode: %v", id, err)
		}
		st.sess[id] = s
		return s
	}
	if !create {
		return nil
	}
	s := st.newEntry()
	st.sess[id] = s
	st.order = append(st.order, id)
	return s
}

// addLine accounts for one complete line of size bytes (newline included).
// A line too long to hold (hash "") is recorded with length -1: not checked.
func (st *state) addLine(line []byte, hash string, size int) {
	n := len(line)
	if hash == "" {
		n = -1
	}
	if st.hdr.Lines == 0 {
		st.hdr.FirstLen, st.hdr.FirstHash = n, hash
	}
	st.hdr.Lines++
	st.hdr.Offset += int64(size)
	st.hdr.LastLen, st.hdr.LastHash = n, hash
	st.changed = true
}

// apply folds one event into its session and the project.
func (st *state) apply(e *Event, hash string) {
	s := st.session(e.SessionID, true)
	s.Events++
	s.LastHash = hash
	if s.view != nil {
		s.view.Fold(e)
	}
	if st.project != nil {
		st.project.Fold(e)
	}
}

// readIndex loads the index file, with the views of folder f (nil: heads only,
// whatever folder wrote it), checking its MAC under key. A missing file returns
// (nil, "", nil); a file that cannot be trusted returns (nil, why, nil).
func readIndex(path string, f Folder, key *logKey, unverified bool) (*state, string, error) {
	indexReads.Add(1)
	data, err := readFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil
	}
	if err != nil {
		return nil, fmt.Sprintf("cannot read %s: %v", path, err), nil
	}
	stamp, body, n, why := nextRecord(data, 0)
	if why != "" {
		return nil, why, nil
	}
	// One HMAC for every record, reset for each: a hook reads up to
	// maxDeltas+1 records.
	var m hash.Hash
	indexMAC := func(key *logKey) hash.Hash {
		if m == nil {
			m = key.mac.NewMAC()
		}
		return m
	}
	if stamp.Format != indexFormat || stamp.Version != indexVersion {
		return nil, fmt.Sprintf("index format %q version %d is not %q version %d", stamp.Format, stamp.Version, indexFormat, indexVersion), nil
	}
	switch {
	case key == nil && stamp.MAC != "" && !unverified:
		return nil, "index has a MAC but the log has no key here", nil
	case key != nil && stamp.MAC == "":
		return nil, "index has no MAC (written before the log was keyed)", nil
	case key != nil && !checkMAC(indexMAC(key), "", body, stamp.MAC):
		return nil, "index MAC does not match: the index was edited", nil
	}
	st := newState(f)
	st.unverified = key == nil && stamp.MAC != ""
	st.raw = data
	st.span = map[string]span{}
	st.lastMAC = stamp.MAC
	st.baseBytes = n
	hdrLine, why := st.addSessions(data, n-len(body), n, true)
	if why != "" {
		return nil, why, nil
	}
	// The deltas: each replaces the header and the lines of the sessions it holds.
	pos := n
	for pos < len(data) {
		stamp, body, end, why := nextRecord(data, pos)
		if why != "" || stamp.Format != "" {
			// A record cut short by a crash: the index ends before it.
			break
		}
		if key != nil && !checkMAC(indexMAC(key), st.lastMAC, body, stamp.MAC) {
			return nil, "index MAC does not match: the index was edited", nil
		}
		if key == nil && stamp.MAC != "" && !st.unverified {
			return nil, "index has a MAC but the log has no key here", nil
		}
		l, why := st.addSessions(data, end-len(body), end, false)
		if why != "" {
			return nil, why, nil
		}
		hdrLine = l
		st.lastMAC = stamp.MAC
		st.deltaBytes += end - pos
		st.deltas++
		pos = end
	}
	if pos == len(data) {
		st.appendAt = int64(pos)
	}
	if why := st.decodeHeader(hdrLine, f); why != "" {
		return nil, why, nil
	}
	return st, "", nil
}

// decodeHeader decodes the header line of an index (or checkpoint) whose
// sessions st holds, with the project view of folder f (nil: none).
func (st *state) decodeHeader(hdrLine []byte, f Folder) string {
	st.hdr = indexHeader{}
	err := readHeaderLine(hdrLine, &st.hdr, st.project)
	st.hdr.Project = nil
	if f != nil && st.hdr.Folder != f.Name() {
		return fmt.Sprintf("index holds views folded by %q, not %q", st.hdr.Folder, f.Name())
	}
	if err != nil {
		return fmt.Sprintf("index header: %v", err)
	}
	if st.hdr.Offset < 0 || st.hdr.Lines < 0 || (st.hdr.Offset == 0) != (st.hdr.Lines == 0) {
		return "index header is inconsistent"
	}
	if len(st.order) != st.hdr.Sessions {
		return fmt.Sprintf("index lists %d sessions, header says %d", len(st.order), st.hdr.Sessions)
	}
	// Notes a run found and no Update has handed to its caller yet.
	for i := range st.hdr.Tamper {
		st.hdr.Tamper[i].New = st.hdr.Tamper[i].Pending
	}
	return ""
}

// nextRecord reads the record at pos of data: its stamp, its body and where it
// ends; why says what is wrong with it.
func nextRecord(data []byte, pos int) (stamp indexStamp, body []byte, end int, why string) {
	nl := bytes.IndexByte(data[pos:], '\n')
	if nl < 0 {
		return stamp, nil, 0, "index has no header line"
	}
	stamp, err := decodeStamp(data[pos : pos+nl])
	if err != nil {
		return stamp, nil, 0, err.Error()
	}
	start := pos + nl + 1
	if stamp.Len < 0 || stamp.Len > len(data)-start {
		return stamp, nil, 0, "index is shorter than its header says"
	}
	body = data[start : start+stamp.Len]
	if crc32.ChecksumIEEE(body) != stamp.CRC {
		return stamp, nil, 0, "index checksum mismatch"
	}
	return stamp, body, start + stamp.Len, ""
}

// checkMAC reports whether mac is the record MAC (chainMAC, in lower-case
// hex) of body after prev; m is from the key's newMAC.
func checkMAC(m hash.Hash, prev string, body []byte, mac string) bool {
	m.Reset()
	io.WriteString(m, prev)
	m.Write(body)
	var sum [sha256.Size]byte
	var want [2 * sha256.Size]byte
	hex.Encode(want[:], m.Sum(sum[:0]))
	return hmac.Equal([]byte(mac), want[:])
}

// addSessions takes the session lines of the record body data[start:end] (after
// its header line, which it returns). A snapshot lists each session once.
func (st *state) addSessions(data []byte, start, end int, snapshot bool) ([]byte, string) {
	nl := bytes.IndexByte(data[start:end], '\n')
	if nl < 0 {
		return nil, "index has no header line"
	}
	hdr := data[start : start+nl]
	seen := map[string]bool{}
	for pos := start + nl + 1; pos < end; {
		nl := bytes.IndexByte(data[pos:end], '\n')
		if nl < 0 {
			return nil, "index session line without newline"
		}
		line := data[pos : pos+nl]
		id := gjson.GetBytes(line, "id")
		if id.Type != gjson.String {
			return nil, "index session line without an id"
		}
		if seen[id.Str] {
			return nil, fmt.Sprintf("index lists session %q twice", id.Str)
		}
		seen[id.Str] = true
		if _, ok := st.span[id.Str]; !ok {
			st.order = append(st.order, id.Str)
		} else if snapshot {
			return nil, fmt.Sprintf("index lists session %q twice", id.Str)
		}
		st.span[id.Str] = span{pos, pos + nl}
		pos += nl + 1
	}
	return hdr, ""
}

// encodeHeader renders the header line of a record.
func (st *state) encodeHeader(b []byte) ([]byte, error) {
	hdr := st.hdr
	hdr.Sessions = len(st.order)
	return appendHeaderLine(b, &hdr, st.project)
}

// encodeSession renders the line of a decoded session.
func (st *state) encodeSession(b []byte, id string, s *entry) ([]byte, error) {
	return appendSessionLine(b, id, s.Head, s.view)
}

// record renders one record: stamp line and body, its MAC chained to prev.
func record(stamp indexStamp, body []byte, key *logKey, prev string) ([]byte, error) {
	stamp.Len = len(body)
	stamp.CRC = crc32.ChecksumIEEE(body)
	if key != nil {
		stamp.MAC = hex.EncodeToString(key.chainMAC(prev, body))
	}
	out := appendStamp(make([]byte, 0, 128+len(body)), stamp)
	out = append(out, '\n')
	return append(out, body...), nil
}

// encodeIndex renders st as a snapshot: the whole index file's bytes.
func (st *state) encodeIndex(key *logKey) ([]byte, error) {
	body, err := st.encodeBody(true)
	if err != nil {
		return nil, err
	}
	return record(indexStamp{Format: indexFormat, Version: indexVersion}, body, key, "")
}

// encodeDelta renders the record appended after the index st was read from:
// the header and every session decoded since (the ones a hook touched).
func (st *state) encodeDelta(key *logKey) ([]byte, error) {
	body, err := st.encodeBody(false)
	if err != nil {
		return nil, err
	}
	return record(indexStamp{}, body, key, st.lastMAC)
}

// encodeBody renders the header and the sessions of a record: every session
// for a snapshot (those never decoded copied as they were read), only the
// decoded ones for a delta.
func (st *state) encodeBody(snapshot bool) ([]byte, error) {
	body, err := st.encodeHeader(make([]byte, 0, 4096))
	if err != nil {
		return nil, err
	}
	for _, id := range st.order {
		if s, ok := st.sess[id]; ok {
			if body, err = st.encodeSession(body, id, s); err != nil {
				return nil, err
			}
		} else if snapshot {
			sp := st.span[id]
			body = append(body, st.raw[sp.start:sp.end+1]...)
		}
	}
	return body, nil
}

// writeIndex replaces the index file atomically: a reader (or a crash) sees the
// old index or the new one, never half of one. Callers hold the lock, so one
// temporary name is enough.
func writeIndex(path string, st *state, key *logKey) error {
	if st.appendAt > 0 && st.deltas < maxDeltas {
		done, err := appendIndex(path, st, key)
		if done || err != nil {
			return err
		}
	}
	data, err := st.encodeIndex(key)
	if err != nil {
		return fmt.Errorf("encode index: %w", err)
	}
	tmp := path + ".tmp"
	f, _, err := openFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		// Not a regular file (a link planted there): remove the name, not what
		// it points to, and make our own.
		_ = os.Remove(tmp)
		f, _, err = openFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_EXCL, 0o644)
	}
	if err == nil {
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("write index %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("replace index %s: %w", path, err)
	}
	st.indexReplaced(data)
	return nil
}

// appendIndex appends a delta record to the index st was read from, unless the
// deltas have outgrown the snapshot (done false: compact). One write on a file
// opened for appending: a crash leaves at worst a cut-short record, which the
// next read ignores (see the top of this file).
func appendIndex(path string, st *state, key *logKey) (done bool, err error) {
	rec, err := st.encodeDelta(key)
	if err != nil {
		return false, fmt.Errorf("encode index: %w", err)
	}
	if st.deltaBytes+len(rec) > max(st.baseBytes, compactMinBytes) {
		return false, nil
	}
	f, fi, err := openFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return false, nil
	}
	defer f.Close()
	// Still the file that was read (callers hold the lock; this catches a
	// file replaced by hand meanwhile).
	if fi.Size() != st.appendAt {
		return false, nil
	}
	if _, err := f.Write(rec); err != nil {
		// The record may be half written: the next read stops before it, and
		// the snapshot written now makes it moot.
		return false, nil
	}
	st.indexAppended(rec)
	return true, nil
}

// readFile is os.ReadFile through openFile. It reads the size fstat gives and no
// more: callers hold the lock, so the file does not change meanwhile.
func readFile(path string) ([]byte, error) {
	f, fi, err := openFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, err
	}
	return data, nil
}
