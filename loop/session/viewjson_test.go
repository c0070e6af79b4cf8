package session

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestViewJSONOnDisk: a View's JSON is what the index files already hold, so
// indexes written before read the same and are written back unchanged.
func TestViewJSONOnDisk(t *testing.T) {
	for _, c := range []struct {
		v    View
		json string
	}{
		{View{}, `{"state":"","events":0,"evidence":0,"stop_blocks":0,"transitions":0,"outcome":"","outcome_forced":false,"started":false,"disarmed":"","session_refused":false,"paused":false,"pause_reason":"","cancelled":"","would_blocks":0,"last_would_block":"","last_type":"","first_timestamp":"","last_timestamp":""}`},
		{View{State: "a \"quoted\" <b> & \\ line\n", Events: 7, Evidence: 2, StopBlocks: 1, Transitions: 3, Outcome: "capped", OutcomeForced: true, Started: true,
			Disarmed: "héllo \u2028 ok", SessionRefused: true, Pinned: "abc", LoopFile: "missing", Tampered: "line 12: x", Held: "h", HooksLoadFailed: true,
			Paused: true, PauseReason: "\xff invalid", Cancelled: "c", WouldBlocks: 4, LastWouldBlock: "w", LastType: "hook_fired", FirstTimestamp: "t1", LastTimestamp: "t2"},
			`{"state":"a \"quoted\" \u003cb\u003e \u0026 \\ line\n","events":7,"evidence":2,"stop_blocks":1,"transitions":3,"outcome":"capped","outcome_forced":true,"started":true,"disarmed":"héllo \u2028 ok","session_refused":true,"pinned":"abc","loop_file":"missing","tampered":"line 12: x","held":"h","hooks_load_failed":true,"paused":true,"pause_reason":"\ufffd invalid","cancelled":"c","would_blocks":4,"last_would_block":"w","last_type":"hook_fired","first_timestamp":"t1","last_timestamp":"t2"}`},
	} {
		got, err := json.Marshal(&c.v)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.json {
			t.Errorf("Marshal:\n got %s\nwant %s", got, c.json)
		}
		var back View
		if err := json.Unmarshal([]byte(c.json), &back); err != nil {
			t.Fatal(err)
		}
		want := c.v
		want.PauseReason = strings.ToValidUTF8(want.PauseReason, "\ufffd")
		if back != want {
			t.Errorf("Unmarshal of %s:\n got %+v\nwant %+v", c.json, back, want)
		}
	}
}

// TestViewJSONRejectsWrongTypes: a view whose values have the wrong types is an
// error (the index holding it is then rebuilt), not a silently zeroed field.
func TestViewJSONRejectsWrongTypes(t *testing.T) {
	for _, bad := range []string{`[]`, `{"state": 3}`, `{"events": "3"}`, `{"events": 1.5}`, `{"started": "yes"}`, `{"state": "x"`} {
		var v View
		if err := json.Unmarshal([]byte(bad), &v); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	var v View
	if err := json.Unmarshal([]byte(`{"state": "a", "unknown": {"x": 1}, "events": null}`), &v); err != nil || v.State != "a" {
		t.Errorf("unknown keys and nulls: %v %+v", err, v)
	}
}
