package eventlog

import (
	"bytes"
	"crypto/hmac"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"

	"github.com/tidwall/gjson"
)

// The index is JSON lines: a stamp (format, version and a CRC-32C of the rest),
// a header object, then one object per session in first-seen order. It holds one
// head and one view per session, never anything per event, so it stays small
// however long the log grows. It is a cache: any doubt about it and the log is
// folded again.
const (
	indexFormat  = "hook-loop-eventlog-index"
	indexVersion = 3 // 2: views of a Folder instead of built-in summaries; 3: keyed log (MAC, key_at, legacy, tamper notes)
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// indexStamp is the first line of the index file.
type indexStamp struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	CRC     uint32 `json:"crc32c"` // of every byte after this line
	// MAC is the HMAC-SHA256 of every byte after this line under the log's key:
	// an index is a cache of states, and an edited one must not claim any.
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
		is := indexSession{View: s.view}
		if s.view == nil {
			is.View = &json.RawMessage{}
		}
		err := json.Unmarshal(st.raw[sp.start:sp.end], &is)
		s.Head = is.Head
		if (err != nil || is.ID != id) && st.corrupt == nil {
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
	data, err := readFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil
	}
	if err != nil {
		return nil, fmt.Sprintf("cannot read %s: %v", path, err), nil
	}
	nl := bytes.IndexByte(data, '\n')
	if nl < 0 {
		return nil, "index has no header line", nil
	}
	var stamp indexStamp
	if err := json.Unmarshal(data[:nl], &stamp); err != nil {
		return nil, fmt.Sprintf("index header: %v", err), nil
	}
	if stamp.Format != indexFormat || stamp.Version != indexVersion {
		return nil, fmt.Sprintf("index format %q version %d is not %q version %d", stamp.Format, stamp.Version, indexFormat, indexVersion), nil
	}
	rest := data[nl+1:]
	if crc32Checksum(rest) != stamp.CRC {
		return nil, "index checksum mismatch", nil
	}
	switch {
	case key == nil && stamp.MAC != "" && !unverified:
		return nil, "index has a MAC but the log has no key here", nil
	case key != nil && stamp.MAC == "":
		return nil, "index has no MAC (written before the log was keyed)", nil
	case key != nil && !hmac.Equal([]byte(stamp.MAC), []byte(hex.EncodeToString(key.mac(rest)))):
		return nil, "index MAC does not match: the index was edited", nil
	}
	nl = bytes.IndexByte(rest, '\n')
	if nl < 0 {
		return nil, "index has no header line", nil
	}
	st := newState(f)
	st.unverified = key == nil && stamp.MAC != ""
	st.hdr = indexHeader{Project: st.project}
	if f == nil {
		st.hdr.Project = &json.RawMessage{}
	}
	err = json.Unmarshal(rest[:nl], &st.hdr)
	st.hdr.Project = nil
	if f != nil && st.hdr.Folder != f.Name() {
		return nil, fmt.Sprintf("index holds views folded by %q, not %q", st.hdr.Folder, f.Name()), nil
	}
	if err != nil {
		return nil, fmt.Sprintf("index header: %v", err), nil
	}
	rest = rest[nl+1:]
	if st.hdr.Offset < 0 || st.hdr.Lines < 0 || (st.hdr.Offset == 0) != (st.hdr.Lines == 0) {
		return nil, "index header is inconsistent", nil
	}
	st.order = make([]string, 0, st.hdr.Sessions)
	st.raw = rest
	st.span = make(map[string]span, st.hdr.Sessions)
	for pos := 0; pos < len(rest); {
		nl := bytes.IndexByte(rest[pos:], '\n')
		if nl < 0 {
			return nil, "index session line without newline", nil
		}
		line := rest[pos : pos+nl]
		id := gjson.GetBytes(line, "id")
		if id.Type != gjson.String {
			return nil, "index session line without an id", nil
		}
		if _, dup := st.span[id.Str]; dup {
			return nil, fmt.Sprintf("index lists session %q twice", id.Str), nil
		}
		st.span[id.Str] = span{pos, pos + nl}
		st.order = append(st.order, id.Str)
		pos += nl + 1
	}
	if len(st.order) != st.hdr.Sessions {
		return nil, fmt.Sprintf("index lists %d sessions, header says %d", len(st.order), st.hdr.Sessions), nil
	}
	return st, "", nil
}

// encodeIndex renders st as the index file's bytes.
func (st *state) encodeIndex(key *logKey) ([]byte, error) {
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	enc.SetEscapeHTML(false)
	hdr := st.hdr
	hdr.Sessions = len(st.order)
	if st.project != nil {
		hdr.Project = st.project
	}
	if err := enc.Encode(&hdr); err != nil {
		return nil, err
	}
	for _, id := range st.order {
		if s, ok := st.sess[id]; ok {
			is := indexSession{ID: id, Head: s.Head}
			if s.view != nil {
				is.View = s.view
			}
			if err := enc.Encode(&is); err != nil {
				return nil, err
			}
			continue
		}
		sp := st.span[id]
		body.Write(st.raw[sp.start : sp.end+1])
	}
	stamp := indexStamp{Format: indexFormat, Version: indexVersion, CRC: crc32Checksum(body.Bytes())}
	if key != nil {
		stamp.MAC = hex.EncodeToString(key.mac(body.Bytes()))
	}
	out, err := json.Marshal(stamp)
	if err != nil {
		return nil, err
	}
	out = append(out, '\n')
	return append(out, body.Bytes()...), nil
}

// writeIndex replaces the index file atomically: a reader (or a crash) sees the
// old index or the new one, never half of one. Callers hold the lock, so one
// temporary name is enough.
func writeIndex(path string, st *state, key *logKey) error {
	data, err := st.encodeIndex(key)
	if err != nil {
		return fmt.Errorf("encode index: %w", err)
	}
	tmp := path + ".tmp"
	f, err := openFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		// Not a regular file (a link planted there): remove the name, not what
		// it points to, and make our own.
		_ = os.Remove(tmp)
		f, err = openFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_EXCL, 0o644)
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
	if err := renameFile(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("replace index %s: %w", path, err)
	}
	return nil
}

func crc32Checksum(b []byte) uint32 { return crc32.Checksum(b, castagnoli) }

// readFile is os.ReadFile through openFile. It reads the size fstat gives and no
// more: callers hold the lock, so the file does not change meanwhile.
func readFile(path string) ([]byte, error) {
	f, err := openFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	data := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, err
	}
	return data, nil
}
