// Package logline is one line of hook-loop's event log: its encoding and
// decoding, its hash (the per-session chain's link) and its MAC (the line
// ends in `,"mac":"<hex>"}`, HMAC-SHA256 under the log's key of the bytes
// before that suffix, prev_hash included, so the chain is keyed too). It is
// the same line in every store (the file, eventlog/postgres); which lines a
// store honours, and where keys live, is the store's.
package logline

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/hook-loop/hook-loop/diag/jsonkind"

	"github.com/tidwall/gjson"
)

// Event is one line of the log. The first nine fields are the Python original's, so its
// readers keep working; the rest are additions.
type Event struct {
	SchemaVersion int            `json:"schema_version"`
	EventID       string         `json:"event_id"`
	SessionID     string         `json:"session_id"`
	RunID         string         `json:"run_id"`
	Timestamp     string         `json:"timestamp"`
	State         string         `json:"state"`
	EventType     string         `json:"event_type"`
	Actor         string         `json:"actor"`
	Payload       map[string]any `json:"payload"`
	// PrevHash is the hex SHA-256 of the previous line (bytes, without the newline)
	// of the same session; "" for a session's first event.
	PrevHash string `json:"prev_hash,omitempty"`
	// MAC is the line's HMAC-SHA256 under the log's key (package doc); Seal
	// writes it last, and it is "" in lines from before keying.
	MAC string `json:"mac,omitempty"`
}

// MaxBytes caps one log line. A store refuses a bigger event and readers skip a
// bigger line without holding it in memory, so a damaged log (or a runaway payload)
// cannot push a hook past its memory budget.
const MaxBytes = 4 << 20

// Hash is the chain hash of one log line: hex SHA-256 of its bytes without the
// trailing newline.
func Hash(line []byte) string {
	sum := sha256.Sum256(line)
	return hex.EncodeToString(sum[:])
}

// lightKeys are the payload keys the light parse decodes: those the loop's
// session views read (a Folder that reads others gets whole payloads).
var lightKeys = [...]string{"initial_state", "to", "outcome", "forced_by_harness", "reason", "session_refused", "hash", "message"}

// LightKeys are the payload keys Decode's light parse decodes.
func LightKeys() []string { return append([]string(nil), lightKeys[:]...) }

// Parse decodes one log line (without its newline) into an Event. A line is an
// event when it is a JSON object whose session_id and event_type are strings;
// every known field must have its documented type, unknown fields are ignored and a
// duplicated key takes its last value. The error says why a line is not an event.
func Parse(line []byte) (Event, error) { return Decode(line, false, false) }

// Decode is Parse that, when light, decodes only LightKeys from the payload,
// which is what folding a large log costs. Both modes share one code path and
// decoding a value of a valid document cannot fail, so they accept exactly the
// same lines (FuzzScanLine checks that). sealed is for a line whose MAC was
// checked: a line hook-loop wrote, so valid JSON (encoding/json wrote it), and
// the validator — a quarter of a cold rebuild — is skipped.
func Decode(line []byte, light, sealed bool) (Event, error) {
	var e Event
	if len(bytes.TrimSpace(line)) == 0 {
		return e, errors.New("empty line")
	}
	// encoding/json's validator, not gjson's: what it accepts, json.Unmarshal can
	// decode, so the string and payload decoding below never fails.
	if !sealed && !json.Valid(line) {
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
		if !light {
			m, _ := decodeValue(payload.Raw).(map[string]any)
			e.Payload = m
		} else {
			payload.ForEach(func(k, v gjson.Result) bool {
				for _, want := range lightKeys {
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

// Append appends e's line as a json.Encoder with HTML escaping off writes it,
// newline included, without a MAC (Key.Seal adds it); an error is a payload
// encoding/json cannot write (a NaN, a channel).
func Append(b []byte, e *Event) ([]byte, error) { return appendEvent(b, e) }
