package logline

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// TestEncodeIsEncodingJSON: a log line is the bytes a json.Encoder (HTML
// escaping off) writes for an Event, so MACs and hashes of lines written by
// either mean the same.
func TestEncodeIsEncodingJSON(t *testing.T) {
	strs := []string{"", "abc", "a \"quoted\" <b> & \\ line\n\t\x01", "héllo \u2028 \u2029", "bad \xff utf8"}
	payloads := []map[string]any{
		nil, {}, {"to": "done", "n": 3, "f": 1.5, "ok": true, "nil": nil, "i64": int64(-7)},
		{"nested": map[string]any{"a": []any{"x", 2.0, map[string]any{"<b>": "&"}}}, "s": "héllo \u2028 \"q\""},
		{"list": []string{"a", "<"}, "ints": []int{1, -2}, "m": map[string]string{"z": "1", "a": "2"}, "none": []string(nil)},
	}
	for i := 0; i < 200; i++ {
		s := func(k int) string { return strs[(i+k)%len(strs)] }
		e := Event{SchemaVersion: i, EventID: s(0), SessionID: s(1), RunID: s(2), Timestamp: s(3), State: s(4),
			EventType: s(5), Actor: s(6), Payload: payloads[i%len(payloads)]}
		if i%2 == 1 {
			e.PrevHash, e.MAC = s(7), s(8)
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(&e); err != nil {
			t.Fatal(err)
		}
		got, err := Append(nil, &e)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != buf.String() {
			t.Fatalf("event %d:\n got %s\nwant %s", i, got, buf.String())
		}
	}
	if _, err := Append(nil, &Event{Payload: map[string]any{"x": math.NaN()}}); err == nil {
		t.Error("a NaN in the payload: no error")
	}
}
