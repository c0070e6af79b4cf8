package logline

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"unicode/utf8"
)

// The writers below write what a json.Encoder writes, byte for byte
// (TestEncodeIsEncodingJSON), without encoding/json's reflection: its
// per-type caches, built afresh in every hook process, cost a one-shot hook
// more than the encoding itself (docs/bench.md, "Hand-written code kept").

// AppendJSONString appends s as encoding/json writes a string (HTML escaping
// as escapeHTML says); plain ASCII takes the short way. Views' hand-written
// codecs (loop/session) use it too.
func AppendJSONString(b []byte, s string, escapeHTML bool) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || escapeHTML && (c == '<' || c == '>' || c == '&') {
			return appendEscaped(b, s, escapeHTML)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendEscaped is encoding/json's string writer (appendString), for strings
// with something to escape: the messages of a hook_fired event have quotes,
// and encoding/json's first use cost a hook process more than its encoding.
func appendEscaped(b []byte, s string, escapeHTML bool) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && !(escapeHTML && (c == '<' || c == '>' || c == '&')) {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		// U+2028 and U+2029 are escaped, as encoding/json does (JSONP).
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// AppendValue appends v as encoding/json writes it (maps, slices, scalars:
// what payloads hold; no struct field cache is built for those).
func AppendValue(b []byte, v any, escapeHTML bool) ([]byte, error) {
	if out, ok := appendPlain(b, v, escapeHTML, 0); ok {
		return out, nil
	}
	return appendEncoded(b, v, escapeHTML)
}

// appendPlain appends v as encoding/json writes it when v is made of what a
// hook's payloads are (strings, booleans, ints, nil, slices of them, maps
// with string keys), without encoding/json: its reflection and its caches,
// built afresh in every hook process, cost a hook more than the encoding.
// Anything else (a float, a named type, a json.Marshaler, deep nesting) is
// not written: ok false, and the caller encodes the whole value with
// encoding/json.
func appendPlain(b []byte, v any, escapeHTML bool, depth int) (out []byte, ok bool) {
	if depth > 32 {
		return b, false
	}
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), true
	case string:
		return AppendJSONString(b, v, escapeHTML), true
	case bool:
		return strconv.AppendBool(b, v), true
	case int:
		return strconv.AppendInt(b, int64(v), 10), true
	case int64:
		return strconv.AppendInt(b, v, 10), true
	case []string:
		return appendList(b, v, escapeHTML, depth, appendStringValue)
	case []int:
		return appendList(b, v, escapeHTML, depth, appendIntValue)
	case []any:
		return appendList(b, v, escapeHTML, depth, appendPlain)
	case map[string]string:
		return appendMap(b, v, escapeHTML, depth, appendStringValue)
	case map[string]any:
		return appendMap(b, v, escapeHTML, depth, appendPlain)
	}
	return b, false
}

// appendStringValue and appendIntValue are appendPlain for one kind, in the
// shape appendList and appendMap take.
func appendStringValue(b []byte, s string, escapeHTML bool, _ int) ([]byte, bool) {
	return AppendJSONString(b, s, escapeHTML), true
}

func appendIntValue(b []byte, n int, _ bool, _ int) ([]byte, bool) {
	return strconv.AppendInt(b, int64(n), 10), true
}

// appendList appends a slice as encoding/json writes it (nil is null).
func appendList[E any](b []byte, list []E, escapeHTML bool, depth int, elem func([]byte, E, bool, int) ([]byte, bool)) ([]byte, bool) {
	if list == nil {
		return append(b, "null"...), true
	}
	b = append(b, '[')
	for i, e := range list {
		if i > 0 {
			b = append(b, ',')
		}
		var ok bool
		if b, ok = elem(b, e, escapeHTML, depth+1); !ok {
			return b, false
		}
	}
	return append(b, ']'), true
}

// appendMap appends a map as encoding/json writes it: keys in the order
// strings compare, nil as null.
func appendMap[V any](b []byte, m map[string]V, escapeHTML bool, depth int, value func([]byte, V, bool, int) ([]byte, bool)) ([]byte, bool) {
	if m == nil {
		return append(b, "null"...), true
	}
	b = append(b, '{')
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendJSONString(b, k, escapeHTML)
		b = append(b, ':')
		var ok bool
		if b, ok = value(b, m[k], escapeHTML, depth+1); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

// appendEncoded appends v as a json.Encoder writes it.
func appendEncoded(b []byte, v any, escapeHTML bool) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(escapeHTML)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})...), nil
}

// AppendKey appends `"key":`, after a comma unless first.
func AppendKey(b []byte, key string, first bool) []byte {
	if !first {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, key...)
	return append(b, '"', ':')
}

// appendEvent appends e's line as a json.Encoder with HTML escaping off
// writes it, newline included; an error is a payload encoding/json cannot
// write (a NaN, a channel).
func appendEvent(b []byte, e *Event) ([]byte, error) {
	b = append(b, `{"schema_version":`...)
	b = strconv.AppendInt(b, int64(e.SchemaVersion), 10)
	for _, f := range [...]struct{ key, v string }{
		{"event_id", e.EventID}, {"session_id", e.SessionID}, {"run_id", e.RunID}, {"timestamp", e.Timestamp},
		{"state", e.State}, {"event_type", e.EventType}, {"actor", e.Actor},
	} {
		b = AppendKey(b, f.key, false)
		b = AppendJSONString(b, f.v, false)
	}
	b = AppendKey(b, "payload", false)
	b, err := AppendValue(b, e.Payload, false)
	if err != nil {
		return nil, err
	}
	if e.PrevHash != "" {
		b = AppendKey(b, "prev_hash", false)
		b = AppendJSONString(b, e.PrevHash, false)
	}
	if e.MAC != "" {
		b = AppendKey(b, "mac", false)
		b = AppendJSONString(b, e.MAC, false)
	}
	return append(b, '}', '\n'), nil
}
