package eventlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/hook-loop/hook-loop/eventlog/logline"

	"github.com/tidwall/gjson"
)

// The index's stamp, header and session lines, and the key file, are read
// with gjson instead of encoding/json: a hook reads them once per process,
// and encoding/json's first decode of each struct type (its field cache,
// built by reflection) costs a hook more than the reading (docs/bench.md).
// They are written by hand for the same reason, as encoding/json writes them;
// TestIndexJSONReadsWhatEncodingJSONWrites and
// TestIndexJSONWritesWhatEncodingJSONWrites keep the codecs in step with the
// structs, so a field added without a line here fails them.

// jsonObject parses line as one JSON object.
func jsonObject(line []byte, what string) (gjson.Result, error) {
	if !gjson.ValidBytes(line) {
		return gjson.Result{}, fmt.Errorf("%s: not valid JSON", what)
	}
	r := gjson.ParseBytes(line)
	if !r.IsObject() {
		return gjson.Result{}, fmt.Errorf("%s: expected an object", what)
	}
	return r, nil
}

// fieldReader reads typed fields of one object, keeping the first error.
type fieldReader struct {
	what string
	err  error
}

func (fr *fieldReader) fail(key, want string) bool {
	if fr.err == nil {
		fr.err = fmt.Errorf("%s: %s: expected %s", fr.what, key, want)
	}
	return false
}

func (fr *fieldReader) str(key string, v gjson.Result, dst *string) bool {
	switch v.Type {
	case gjson.Null:
		return true
	case gjson.String:
		*dst = logline.DecodeString(v)
		return true
	}
	return fr.fail(key, "a string")
}

func (fr *fieldReader) integer(key string, v gjson.Result, bits int) (int64, bool) {
	if v.Type != gjson.Number || v.Num != math.Trunc(v.Num) || math.Abs(v.Num) > 1<<53 {
		return 0, fr.fail(key, "an integer")
	}
	n := v.Int()
	if bits < 64 && (n < -(1<<(bits-1)) || n >= 1<<(bits-1)) {
		return 0, fr.fail(key, "an integer in range")
	}
	return n, true
}

func (fr *fieldReader) intField(key string, v gjson.Result, dst *int) bool {
	if v.Type == gjson.Null {
		return true
	}
	n, ok := fr.integer(key, v, 64)
	*dst = int(n)
	return ok
}

func (fr *fieldReader) int64Field(key string, v gjson.Result, dst *int64) bool {
	if v.Type == gjson.Null {
		return true
	}
	n, ok := fr.integer(key, v, 64)
	*dst = n
	return ok
}

func (fr *fieldReader) boolField(key string, v gjson.Result, dst *bool) bool {
	switch v.Type {
	case gjson.Null:
		return true
	case gjson.True, gjson.False:
		*dst = v.Type == gjson.True
		return true
	}
	return fr.fail(key, "true or false")
}

// decodeStamp reads a record's stamp line.
func decodeStamp(line []byte) (indexStamp, error) {
	var s indexStamp
	r, err := jsonObject(line, "index header")
	if err != nil {
		return s, err
	}
	fr := &fieldReader{what: "index header"}
	r.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "format":
			return fr.str(k.Str, v, &s.Format)
		case "version":
			return fr.intField(k.Str, v, &s.Version)
		case "len":
			return fr.intField(k.Str, v, &s.Len)
		case "crc32":
			if v.Type == gjson.Null {
				return true
			}
			if v.Type != gjson.Number || v.Num < 0 || v.Num > math.MaxUint32 || v.Num != math.Trunc(v.Num) {
				return fr.fail(k.Str, "a 32-bit checksum")
			}
			s.CRC = uint32(v.Uint())
		case "mac":
			return fr.str(k.Str, v, &s.MAC)
		}
		return true
	})
	return s, fr.err
}

// readHeaderLine reads a record's header line into h. The project's view goes
// into project when there is a Folder; without one it is kept raw.
func readHeaderLine(line []byte, h *indexHeader, project View) error {
	r, err := jsonObject(line, "index header")
	if err != nil {
		return err
	}
	fr := &fieldReader{what: "index header"}
	r.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "offset":
			return fr.int64Field(k.Str, v, &h.Offset)
		case "lines":
			return fr.intField(k.Str, v, &h.Lines)
		case "first_len":
			return fr.intField(k.Str, v, &h.FirstLen)
		case "first_hash":
			return fr.str(k.Str, v, &h.FirstHash)
		case "last_len":
			return fr.intField(k.Str, v, &h.LastLen)
		case "last_hash":
			return fr.str(k.Str, v, &h.LastHash)
		case "file_id":
			return fr.str(k.Str, v, &h.FileID)
		case "sessions":
			return fr.intField(k.Str, v, &h.Sessions)
		case "folder":
			return fr.str(k.Str, v, &h.Folder)
		case "project":
			if v.Type == gjson.Null {
				return true
			}
			if project == nil {
				raw := json.RawMessage(v.Raw)
				h.Project = &raw
				return true
			}
			if err := unmarshalView([]byte(v.Raw), project); err != nil {
				fr.err = fmt.Errorf("index header: project: %w", err)
				return false
			}
			h.Project = project
		case "keyed_at":
			return fr.intField(k.Str, v, &h.KeyedAt)
		case "legacy":
			return fr.intField(k.Str, v, &h.Legacy)
		case "tampered":
			return fr.intField(k.Str, v, &h.Tampered)
		case "next_checkpoint":
			return fr.int64Field(k.Str, v, &h.NextCheckpoint)
		case "tamper":
			if v.Type == gjson.Null {
				return true
			}
			if !v.IsArray() {
				return fr.fail(k.Str, "an array")
			}
			h.Tamper = h.Tamper[:0]
			v.ForEach(func(_, n gjson.Result) bool {
				if !n.IsObject() {
					return fr.fail(k.Str, "objects")
				}
				var note TamperNote
				n.ForEach(func(nk, nv gjson.Result) bool {
					switch nk.Str {
					case "line":
						return fr.intField("tamper.line", nv, &note.Line)
					case "session":
						return fr.str("tamper.session", nv, &note.Session)
					case "reason":
						return fr.str("tamper.reason", nv, &note.Reason)
					case "pending":
						return fr.boolField("tamper.pending", nv, &note.Pending)
					}
					return true
				})
				h.Tamper = append(h.Tamper, note)
				return fr.err == nil
			})
		}
		return fr.err == nil
	})
	return fr.err
}

// decodeSession reads a session line of the index: its id and head, and its
// view into view (raw when view is nil).
func decodeSession(line []byte, view View) (id string, head Head, raw json.RawMessage, err error) {
	r, err := jsonObject(line, "index session")
	if err != nil {
		return "", head, nil, err
	}
	fr := &fieldReader{what: "index session"}
	r.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "id":
			return fr.str(k.Str, v, &id)
		case "head":
			if v.Type == gjson.Null {
				return true
			}
			if !v.IsObject() {
				return fr.fail(k.Str, "an object")
			}
			v.ForEach(func(hk, hv gjson.Result) bool {
				switch hk.Str {
				case "events":
					return fr.intField("head.events", hv, &head.Events)
				case "last_hash":
					return fr.str("head.last_hash", hv, &head.LastHash)
				}
				return true
			})
		case "view":
			if v.Type == gjson.Null {
				return true
			}
			if view == nil {
				raw = json.RawMessage(v.Raw)
				return true
			}
			if err := unmarshalView([]byte(v.Raw), view); err != nil {
				fr.err = fmt.Errorf("index session: view: %w", err)
				return false
			}
		}
		return fr.err == nil
	})
	return id, head, raw, fr.err
}

// unmarshalView decodes a view, by its own codec when it has one (skipping
// encoding/json's second validation of the bytes).
func unmarshalView(data []byte, v View) error {
	if u, ok := v.(json.Unmarshaler); ok {
		return u.UnmarshalJSON(data)
	}
	return json.Unmarshal(data, v)
}

// decodeKey reads a key file.
func decodeKey(data []byte, k *logKey) error {
	r, err := jsonObject(data, "log key")
	if err != nil {
		return err
	}
	fr := &fieldReader{what: "log key"}
	r.ForEach(func(key, v gjson.Result) bool {
		switch key.Str {
		case "key":
			return fr.str(key.Str, v, &k.Key)
		case "log":
			return fr.str(key.Str, v, &k.Log)
		case "legacy_bytes":
			return fr.int64Field(key.Str, v, &k.LegacyBytes)
		case "legacy_sha256":
			return fr.str(key.Str, v, &k.LegacySHA256)
		}
		return true
	})
	return fr.err
}

// appendView appends a Folder's view: by its own codec when it has one.
func appendView(b []byte, v View) ([]byte, error) {
	if m, ok := v.(json.Marshaler); ok {
		out, err := m.MarshalJSON()
		if err != nil {
			return nil, err
		}
		return append(b, out...), nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})...), nil
}

// appendHeaderLine appends h's line, newline included; project is written as
// its "project" value when not nil.
func appendHeaderLine(b []byte, h *indexHeader, project View) ([]byte, error) {
	b = append(b, '{')
	b = logline.AppendKey(b, "offset", true)
	b = strconv.AppendInt(b, h.Offset, 10)
	b = logline.AppendKey(b, "lines", false)
	b = strconv.AppendInt(b, int64(h.Lines), 10)
	b = logline.AppendKey(b, "first_len", false)
	b = strconv.AppendInt(b, int64(h.FirstLen), 10)
	b = logline.AppendKey(b, "first_hash", false)
	b = logline.AppendJSONString(b, h.FirstHash, false)
	b = logline.AppendKey(b, "last_len", false)
	b = strconv.AppendInt(b, int64(h.LastLen), 10)
	b = logline.AppendKey(b, "last_hash", false)
	b = logline.AppendJSONString(b, h.LastHash, false)
	if h.FileID != "" {
		b = logline.AppendKey(b, "file_id", false)
		b = logline.AppendJSONString(b, h.FileID, false)
	}
	b = logline.AppendKey(b, "sessions", false)
	b = strconv.AppendInt(b, int64(h.Sessions), 10)
	b = logline.AppendKey(b, "folder", false)
	b = logline.AppendJSONString(b, h.Folder, false)
	if project != nil {
		b = logline.AppendKey(b, "project", false)
		var err error
		if b, err = appendView(b, project); err != nil {
			return nil, err
		}
	}
	for _, n := range []struct {
		key string
		v   int
	}{{"keyed_at", h.KeyedAt}, {"legacy", h.Legacy}, {"tampered", h.Tampered}} {
		if n.v != 0 {
			b = logline.AppendKey(b, n.key, false)
			b = strconv.AppendInt(b, int64(n.v), 10)
		}
	}
	if len(h.Tamper) > 0 {
		b = logline.AppendKey(b, "tamper", false)
		b = append(b, '[')
		for i, n := range h.Tamper {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"line":`...)
			b = strconv.AppendInt(b, int64(n.Line), 10)
			b = append(b, `,"session":`...)
			b = logline.AppendJSONString(b, n.Session, false)
			b = append(b, `,"reason":`...)
			b = logline.AppendJSONString(b, n.Reason, false)
			if n.Pending {
				b = append(b, `,"pending":true`...)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if h.NextCheckpoint != 0 {
		b = logline.AppendKey(b, "next_checkpoint", false)
		b = strconv.AppendInt(b, h.NextCheckpoint, 10)
	}
	return append(b, '}', '\n'), nil
}

// appendSessionLine appends a session's index line, newline included.
func appendSessionLine(b []byte, id string, head Head, view View) ([]byte, error) {
	b = append(b, `{"id":`...)
	b = logline.AppendJSONString(b, id, false)
	b = append(b, `,"head":{"events":`...)
	b = strconv.AppendInt(b, int64(head.Events), 10)
	b = append(b, `,"last_hash":`...)
	b = logline.AppendJSONString(b, head.LastHash, false)
	b = append(b, '}')
	if view != nil {
		b = append(b, `,"view":`...)
		var err error
		if b, err = appendView(b, view); err != nil {
			return nil, err
		}
	}
	return append(b, '}', '\n'), nil
}

// appendStamp appends a record's stamp line (no newline), as json.Marshal wrote it.
func appendStamp(b []byte, s indexStamp) []byte {
	b = append(b, '{')
	first := true
	if s.Format != "" {
		b = logline.AppendKey(b, "format", first)
		b = logline.AppendJSONString(b, s.Format, true)
		first = false
	}
	if s.Version != 0 {
		b = logline.AppendKey(b, "version", first)
		b = strconv.AppendInt(b, int64(s.Version), 10)
		first = false
	}
	b = logline.AppendKey(b, "len", first)
	b = strconv.AppendInt(b, int64(s.Len), 10)
	b = logline.AppendKey(b, "crc32", false)
	b = strconv.AppendUint(b, uint64(s.CRC), 10)
	if s.MAC != "" {
		b = logline.AppendKey(b, "mac", false)
		b = logline.AppendJSONString(b, s.MAC, true)
	}
	return append(b, '}')
}
