//go:build linux

package pgkeeper

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestWireMatchesEncodingJSON: the hook's hand-written side of the protocol
// means what encoding/json (the keeper's side) means.
func TestWireMatchesEncodingJSON(t *testing.T) {
	metas := []*meta{
		nil,
		{},
		{PID: 4294967295, SecretKey: []byte{0, 1, 2, 250, 251, 252}, Params: map[string]string{"a \"q\"": "<b>&\u2028", "server_version": "15.4", "": ""}, Prepared: []string{"hook_loop_view_0123456789ab", "x"}},
		{PID: 7, SecretKey: []byte{}, Params: map[string]string{}},
	}
	for _, m := range metas {
		req := request{Op: "give", Key: "k\x01é", Meta: m}
		var got request
		if err := json.Unmarshal(appendRequest(nil, req), &got); err != nil {
			t.Fatalf("appendRequest(%+v): %v: %s", req, err, appendRequest(nil, req))
		}
		if !reflect.DeepEqual(got, req) {
			t.Fatalf("appendRequest: encoding/json reads %+v, want %+v", got, req)
		}
		for _, ok := range []bool{true, false} {
			rep := reply{OK: ok, Meta: m}
			b, err := json.Marshal(rep)
			if err != nil {
				t.Fatal(err)
			}
			var want, got reply
			if err := json.Unmarshal(b, &want); err != nil {
				t.Fatal(err)
			}
			if err := parseReply(b, &got); err != nil {
				t.Fatalf("parseReply(%s): %v", b, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("parseReply(%s) = %+v, want %+v", b, got, want)
			}
		}
	}
	for _, bad := range []string{`nope`, `[1]`, `{"ok":true,"meta":{"pid":-1}}`, `{"ok":true,"meta":{"secret_key":"!!"}}`, `{"ok":true,"meta":{"params":{"a":1}}}`} {
		var rep reply
		if err := parseReply([]byte(bad), &rep); err == nil {
			t.Fatalf("parseReply(%s) = %+v, want an error", bad, rep)
		}
	}
}
