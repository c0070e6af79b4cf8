package session

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
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

// plainView has View's fields and tags but not its JSON methods: what
// encoding/json makes of the struct tags.
type plainView View

// randomView sets every field of a View, so a field the hand-written codec does
// not know is caught.
func randomView(r *rand.Rand, zero bool) View {
	var v View
	rv := reflect.ValueOf(&v).Elem()
	strs := []string{"executing", "a \"quoted\" <b> & \\ line\n", "héllo \u2028 ok", "\xff invalid", ""}
	for i := 0; i < rv.NumField(); i++ {
		if zero && r.IntN(2) == 0 {
			continue
		}
		f := rv.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(strs[r.IntN(len(strs))])
		case reflect.Int:
			f.SetInt(int64(r.IntN(1 << 20)))
		case reflect.Bool:
			f.SetBool(r.IntN(2) == 0)
		default:
			panic("View has a field of kind " + f.Kind().String() + ": teach viewjson.go and this test about it")
		}
	}
	return v
}

// TestViewJSONMatchesEncodingJSON: View's hand-written codec writes what
// encoding/json writes from the struct tags, byte for byte, and reads it back.
func TestViewJSONMatchesEncodingJSON(t *testing.T) {
	if n := reflect.TypeOf(View{}).NumField(); n != len(viewFields) {
		t.Fatalf("View has %d fields, viewjson.go knows %d", n, len(viewFields))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 500; i++ {
		v := randomView(r, i%2 == 1)
		want, err := json.Marshal(plainView(v))
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(&v)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("MarshalJSON:\n got %s\nwant %s", got, want)
		}
		var back View
		if err := json.Unmarshal(want, &back); err != nil {
			t.Fatal(err)
		}
		var plain plainView
		if err := json.Unmarshal(want, &plain); err != nil {
			t.Fatal(err)
		}
		if back != View(plain) {
			t.Fatalf("UnmarshalJSON of %s:\n got %+v\nwant %+v", want, back, View(plain))
		}
	}
}

// TestViewJSONRejectsWrongTypes: a view whose values have the wrong types is an
// error (the index holding it is then rebuilt), not a silently zeroed field.
