package eventlog

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/hook-loop/hook-loop/diag/jsonkind"

	"github.com/tidwall/gjson"
)

// MaxLineBytes caps one log line. Append refuses a bigger event and readers skip a
// bigger line without holding it in memory, so a damaged log (or a runaway payload)
// cannot push a hook past its memory budget.
const MaxLineBytes = 4 << 20

// LineHash is the chain hash of one log line: hex SHA-256 of its bytes without the
// trailing newline.
func LineHash(line []byte) string {
	sum := sha256.Sum256(line)
	return hex.EncodeToString(sum[:])
}

// summaryPayloadKeys are the payload keys the light parse decodes: those the
// loop's session views read (a Folder that reads others gets whole payloads).
var summaryPayloadKeys = [...]string{"initial_state", "to", "outcome", "forced_by_harness", "reason", "session_refused", "hash"}

// ParseLine decodes one log line (without its newline) into an Event. A line is an
// event when it is a JSON object whose session_id and event_type are strings;
// every known field must have its documented type, unknown fields are ignored and a
// duplicated key takes its last value. The error says why a line is not an event.
func ParseLine(line []byte) (Event, error) { return parseLine(line, true) }

// parseLine with full=false decodes only summaryPayloadKeys from the payload,
// which is what folding a large log costs. Both modes share one code path and
// decoding a value of a valid document cannot fail, so they accept exactly the
// same lines (FuzzScanLine checks that).
func parseLine(line []byte, full bool) (Event, error) { return parseLineMAC(line, full, false) }

// parseLineMAC is parseLine for a line whose MAC was checked when macOK: a line
// hook-loop wrote, so valid JSON (encoding/json wrote it), and the validator —
// a quarter of a cold rebuild — is skipped.
func parseLineMAC(line []byte, full, macOK bool) (Event, error) {
	var e Event
	if len(bytes.TrimSpace(line)) == 0 {
		return e, errors.New("empty line")
	}
	// encoding/json's validator, not gjson's: what it accepts, json.Unmarshal can
	// decode, so the string and payload decoding below never fails.
	if !macOK && !json.Valid(line) {
		return e, errors.New("not valid JSON")
	}
	root := gjson.ParseBytes(line)
	if !root.IsObject() {
		return e, errors.New("not a JSON object")
	}
	var err error
	var haveSession, haveType bool
	var payload gjson.Result
	root.ForEach(func(k, v gjson.Result) bool {
		str := func(dst *string) bool {
			if v.Type != gjson.String {
				err = fmt.Errorf("%s: expected a string, got %s", k.Str, jsonkind.Of(v))
				return false
			}
			*dst = DecodeString(v)
			return true
		}
		// Known keys are ASCII, so gjson's unescaping of a key cannot make an
		// unknown key match one (or the reverse).
		switch k.Str {
		case "schema_version":
			if v.Type != gjson.Number || v.Num != math.Trunc(v.Num) || math.Abs(v.Num) > math.MaxInt32 {
				err = fmt.Errorf("schema_version: expected an integer, got %.40s", v.Raw)
				return false
			}
			e.SchemaVersion = int(v.Num)
		case "event_id":
			return str(&e.EventID)
		case "session_id":
			haveSession = true
			return str(&e.SessionID)
		case "run_id":
			return str(&e.RunID)
		case "timestamp":
			return str(&e.Timestamp)
		case "state":
			return str(&e.State)
		case "event_type":
			haveType = true
			return str(&e.EventType)
		case "actor":
			return str(&e.Actor)
		case "prev_hash":
			return str(&e.PrevHash)
		case "mac":
			return str(&e.MAC)
		case "payload":
			if v.Type != gjson.Null && !v.IsObject() {
				err = fmt.Errorf("payload: expected an object, got %s", jsonkind.Of(v))
				return false
			}
			payload = v
		}
		return true
	})
	if err != nil {
		return Event{}, err
	}
	if !haveSession {
		return Event{}, errors.New("no session_id")
	}
	if !haveType {
		return Event{}, errors.New("no event_type")
	}
	if payload.IsObject() {
		if full {
			m, _ := decodeValue(payload.Raw).(map[string]any)
			e.Payload = m
		} else {
			payload.ForEach(func(k, v gjson.Result) bool {
				for _, want := range summaryPayloadKeys {
					if k.Str == want {
						if e.Payload == nil {
							e.Payload = make(map[string]any, 2)
						}
						e.Payload[want] = decodeScalar(v)
					}
				}
				return true
			})
		}
	}
	return e, nil
}

// DecodeString is encoding/json's reading of a JSON string (invalid UTF-8 and
// lone surrogates become U+FFFD), with a fast path for plain ASCII.
func DecodeString(v gjson.Result) string {
	for i := 0; i < len(v.Raw); i++ {
		if c := v.Raw[i]; c == '\\' || c < 0x20 || c >= 0x80 {
			var s string
			_ = json.Unmarshal([]byte(v.Raw), &s)
			return s
		}
	}
	return v.Str
}

// decodeValue decodes a valid JSON value as json.Unmarshal into any does, except
// that a number float64 cannot hold (1e400) stays a json.Number instead of
// failing: one odd number must not make a whole event unreadable.
func decodeValue(raw string) any {
	d := json.NewDecoder(strings.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil
	}
	return floatNumbers(v)
}

// decodeScalar is decodeValue with a fast path for the scalar values the fold reads.
func decodeScalar(v gjson.Result) any {
	switch v.Type {
	case gjson.Null:
		return nil
	case gjson.True:
		return true
	case gjson.False:
		return false
	case gjson.String:
		return DecodeString(v)
	case gjson.Number:
		if f, err := strconv.ParseFloat(v.Raw, 64); err == nil {
			return f
		}
		return json.Number(v.Raw)
	}
	return decodeValue(v.Raw)
}

func floatNumbers(v any) any {
	switch t := v.(type) {
	case json.Number:
		if f, err := t.Float64(); err == nil {
			return f
		}
		return t
	case map[string]any:
		for k, x := range t {
			t[k] = floatNumbers(x)
		}
	case []any:
		for i, x := range t {
			t[i] = floatNumbers(x)
		}
	}
	return v
}

// lineReader splits a byte stream into lines. It keeps memory bounded: a line
// longer than MaxLineBytes is consumed without being held.
type lineReader struct {
	r    *bufio.Reader
	buf  []byte
	read int64 // bytes consumed so far
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next line without its newline; terminated is false for the
// final bytes of the stream when they do not end with '\n' (a torn tail); tooLong
// marks a line over MaxLineBytes (line is then nil). size counts the consumed bytes
// including the newline. At the end of the stream it returns io.EOF.
func (lr *lineReader) next() (line []byte, terminated, tooLong bool, size int, err error) {
	lr.buf = lr.buf[:0]
	for {
		chunk, rerr := lr.r.ReadSlice('\n')
		size += len(chunk)
		if !tooLong {
			if len(lr.buf)+len(chunk) > MaxLineBytes+1 {
				tooLong = true
				lr.buf = lr.buf[:0]
			} else if rerr == nil && len(lr.buf) == 0 {
				// Common case: the whole line is in the reader's buffer.
				lr.read += int64(size)
				return chunk[:len(chunk)-1], true, false, size, nil
			} else {
				lr.buf = append(lr.buf, chunk...)
			}
		}
		switch {
		case rerr == nil:
			lr.read += int64(size)
			if tooLong {
				return nil, true, true, size, nil
			}
			return lr.buf[:len(lr.buf)-1], true, false, size, nil
		case errors.Is(rerr, bufio.ErrBufferFull):
			continue
		case errors.Is(rerr, io.EOF):
			lr.read += int64(size)
			if size == 0 {
				return nil, false, false, 0, io.EOF
			}
			if tooLong {
				return nil, false, true, size, nil
			}
			return lr.buf, false, false, size, nil
		default:
			return nil, false, false, size, rerr
		}
	}
}
