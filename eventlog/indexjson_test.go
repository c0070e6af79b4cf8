package eventlog

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
)

// fill sets every exported field with a json tag other than "-" (recursively
// for structs and slices of structs) to a random value.
func fill(t *testing.T, r *rand.Rand, v reflect.Value) {
	t.Helper()
	strs := []string{"abc", "a \"quoted\" <b> & \\ line\n", "héllo \u2028"}
	for i := 0; i < v.NumField(); i++ {
		sf := v.Type().Field(i)
		if !sf.IsExported() || sf.Tag.Get("json") == "-" || sf.Tag.Get("json") == "" {
			continue
		}
		f := v.Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(strs[r.IntN(len(strs))])
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(r.IntN(1<<30)) + 1)
		case reflect.Uint32:
			f.SetUint(uint64(r.Uint32()) | 1)
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Slice:
			n := 1 + r.IntN(3)
			s := reflect.MakeSlice(f.Type(), n, n)
			for j := 0; j < n; j++ {
				fill(t, r, s.Index(j))
			}
			f.Set(s)
		case reflect.Struct:
			fill(t, r, f)
		case reflect.Interface, reflect.Map:
			// Project / View (a Folder's view) and Payload: set by the caller.
		default:
			t.Fatalf("%s.%s is a %s: teach indexjson.go and this test about it", v.Type(), sf.Name, f.Kind())
		}
	}
}

// TestIndexJSONReadsWhatEncodingJSONWrites: the hand-written readers of the
// index's lines and the key file read back every field encoding/json writes.
func TestIndexJSONReadsWhatEncodingJSONWrites(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 200; i++ {
		var stamp indexStamp
		fill(t, r, reflect.ValueOf(&stamp).Elem())
		b, _ := json.Marshal(stamp)
		got, err := decodeStamp(b)
		if err != nil || got != stamp {
			t.Fatalf("stamp %s: got %+v, %v", b, got, err)
		}

		var hdr indexHeader
		fill(t, r, reflect.ValueOf(&hdr).Elem())
		view := &Summary{State: "s", Events: 3, Outcome: "o", Forced: true, Reason: "r", LastType: "t"}
		hdr.Project = view
		b, _ = json.Marshal(hdr)
		var gotHdr indexHeader
		into := &Summary{}
		if err := readHeaderLine(b, &gotHdr, into); err != nil {
			t.Fatalf("header %s: %v", b, err)
		}
		if !reflect.DeepEqual(gotHdr.Project, hdr.Project) {
			t.Fatalf("header project: got %+v, want %+v", gotHdr.Project, hdr.Project)
		}
		want := hdr
		want.Project, gotHdr.Project = nil, nil
		for j := range want.Tamper {
			want.Tamper[j].New = false
		}
		if !reflect.DeepEqual(gotHdr, want) {
			t.Fatalf("header %s:\n got %+v\nwant %+v", b, gotHdr, want)
		}
		var raw indexHeader
		if err := readHeaderLine(b, &raw, nil); err != nil || raw.Project == nil {
			t.Fatalf("header without a folder: project %v, %v", raw.Project, err)
		}

		var is indexSession
		fill(t, r, reflect.ValueOf(&is).Elem())
		is.View = view
		b, _ = json.Marshal(is)
		gotView := &Summary{}
		id, head, _, err := decodeSession(b, gotView)
		if err != nil || id != is.ID || head != is.Head || *gotView != *view {
			t.Fatalf("session %s: got %q %+v %+v, %v", b, id, head, gotView, err)
		}

		var k logKey
		fill(t, r, reflect.ValueOf(&k).Elem())
		b, _ = json.Marshal(k)
		var gotKey logKey
		if err := decodeKey(b, &gotKey); err != nil || gotKey.Key != k.Key || gotKey.Log != k.Log || gotKey.LegacyBytes != k.LegacyBytes || gotKey.LegacySHA256 != k.LegacySHA256 {
			t.Fatalf("key %s: got %+v, %v", b, gotKey, err)
		}
	}
}

// TestIndexJSONRejectsWrongTypes: a line whose values have the wrong types is an
// error (the index is then folded again), as it was with encoding/json.
func TestIndexJSONRejectsWrongTypes(t *testing.T) {
	for _, bad := range []string{`[]`, `{"len": "3"}`, `{"crc32": -1}`, `{"len": 1.5}`, `{"mac": 3}`, `{"len": 3`} {
		if _, err := decodeStamp([]byte(bad)); err == nil {
			t.Errorf("stamp %s: no error", bad)
		}
	}
	for _, bad := range []string{`{"offset": "1"}`, `{"tamper": {}}`, `{"tamper": [3]}`, `{"tamper": [{"line": "x"}]}`, `{"folder": 1}`, `{"project": {"state": 3}}`} {
		var h indexHeader
		if err := readHeaderLine([]byte(bad), &h, &Summary{}); err == nil {
			t.Errorf("header %s: no error", bad)
		}
	}
	for _, bad := range []string{`{"id": 1}`, `{"head": []}`, `{"head": {"events": "1"}}`} {
		if _, _, _, err := decodeSession([]byte(bad), nil); err == nil {
			t.Errorf("session %s: no error", bad)
		}
	}
	var k logKey
	if err := decodeKey([]byte(`{"legacy_bytes": "1"}`), &k); err == nil {
		t.Error("key with a string legacy_bytes: no error")
	}
}

// markedView is a Folder view with its own JSON codec, as loop/session's is.
type markedView struct{ Summary }

func (m *markedView) MarshalJSON() ([]byte, error) { return json.Marshal(m.Summary) }

// TestIndexJSONWritesWhatEncodingJSONWrites: the hand-written writers give the
// bytes a json.Encoder (HTML escaping off) gave for the same structs, so an
// index or checkpoint written by this version reads the same in any other.
func TestIndexJSONWritesWhatEncodingJSONWrites(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	encode := func(v any) string {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	for i := 0; i < 300; i++ {
		var hdr indexHeader
		fill(t, r, reflect.ValueOf(&hdr).Elem())
		if i%3 == 0 {
			hdr.FileID, hdr.KeyedAt, hdr.Legacy, hdr.Tampered, hdr.Tamper, hdr.NextCheckpoint = "", 0, 0, 0, nil, 0
		}
		for j := range hdr.Tamper {
			hdr.Tamper[j].Pending = r.IntN(2) == 0
		}
		var project View
		switch i % 3 {
		case 1:
			project = &Summary{State: "<s> & \"q\"", Events: i, Forced: true}
		case 2:
			project = &markedView{Summary{State: "s", Events: i}}
		}
		want := hdr
		if project != nil {
			want.Project = project
		}
		got, err := appendHeaderLine(nil, &hdr, project)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != encode(&want) {
			t.Fatalf("header:\n got %s\nwant %s", got, encode(&want))
		}

		var is indexSession
		fill(t, r, reflect.ValueOf(&is).Elem())
		var view View
		if i%2 == 0 {
			view = &Summary{State: "a<b", Reason: "héllo", Events: i}
			is.View = view
		}
		got, err = appendSessionLine(nil, is.ID, is.Head, view)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != encode(&is) {
			t.Fatalf("session:\n got %s\nwant %s", got, encode(&is))
		}

		var stamp indexStamp
		fill(t, r, reflect.ValueOf(&stamp).Elem())
		if i%2 == 0 {
			stamp.Format, stamp.Version, stamp.MAC = "", 0, ""
		}
		wantStamp, _ := json.Marshal(stamp)
		if got := appendStamp(nil, stamp); string(got) != string(wantStamp) {
			t.Fatalf("stamp:\n got %s\nwant %s", got, wantStamp)
		}
	}
}
