package eventlog

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
)

var payloadStrings = []string{"", "a", "plain ascii", `quote " and \ backslash`, "<html> & more", "tab\tnew\nline\r\b\f\x00\x1f",
	"é ü 日本", "\u2028\u2029", "bad \xff utf8 \xc3", "emoji 😀", "{\"json\":1}"}

// randomPayload is a value of what payloads hold, with now and then one
// appendPlain leaves to encoding/json (a float, a named type, a RawMessage).
func randomPayload(r *rand.Rand, depth int) any {
	n := 12
	if depth > 3 {
		n = 7
	}
	switch r.IntN(n) {
	case 0:
		return nil
	case 1:
		return payloadStrings[r.IntN(len(payloadStrings))]
	case 2:
		return r.IntN(2) == 0
	case 3:
		return r.IntN(2000) - 1000
	case 4:
		return int64(r.Uint64())
	case 5:
		if r.IntN(4) == 0 {
			return []string(nil)
		}
		s := make([]string, r.IntN(4))
		for i := range s {
			s[i] = payloadStrings[r.IntN(len(payloadStrings))]
		}
		return s
	case 6:
		switch r.IntN(5) {
		case 0:
			return 1.5
		case 1:
			return json.RawMessage(`{"raw": true}`)
		case 2:
			type named string
			return named("x")
		case 3:
			return []int(nil)
		}
		return []int{r.IntN(9), -r.IntN(9)}
	case 7, 8:
		if r.IntN(6) == 0 {
			return []any(nil)
		}
		s := make([]any, r.IntN(4))
		for i := range s {
			s[i] = randomPayload(r, depth+1)
		}
		return s
	case 9:
		if r.IntN(6) == 0 {
			return map[string]string(nil)
		}
		m := map[string]string{}
		for range r.IntN(4) {
			m[payloadStrings[r.IntN(len(payloadStrings))]] = payloadStrings[r.IntN(len(payloadStrings))]
		}
		return m
	default:
		if r.IntN(8) == 0 {
			return map[string]any(nil)
		}
		m := map[string]any{}
		for range r.IntN(5) {
			m[payloadStrings[r.IntN(len(payloadStrings))]] = randomPayload(r, depth+1)
		}
		return m
	}
}

// TestPayloadJSONWritesWhatEncodingJSONWrites: payloads are written byte for
// byte as a json.Encoder writes them, HTML escaping on or off, whether
// appendPlain writes them or hands them to encoding/json.
func TestPayloadJSONWritesWhatEncodingJSONWrites(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	deep := any("leaf")
	for range 40 {
		deep = []any{map[string]any{"d": deep}}
	}
	values := []any{nil, map[string]any{}, []any{}, []string{}, map[string]any{"b": 1, "a": []string(nil), "c": map[string]any(nil)}, deep}
	for range 3000 {
		values = append(values, randomPayload(r, 0))
	}
	for _, v := range values {
		for _, html := range []bool{false, true} {
			want, werr := appendEncoded([]byte("prefix"), v, html)
			got, gerr := appendJSONValue([]byte("prefix"), v, html)
			if !bytes.Equal(got, want) || (gerr == nil) != (werr == nil) {
				t.Fatalf("%#v (html %v):\ngot  %s (%v)\nwant %s (%v)", v, html, got, gerr, want, werr)
			}
		}
	}
}

func FuzzPayloadJSON(f *testing.F) {
	f.Add("plain", "key", int64(3), true)
	f.Add("bad \xff", "<k>", int64(-1), false)
	f.Fuzz(func(t *testing.T, s, k string, n int64, b bool) {
		v := map[string]any{k: s, "n": n, "b": b, "l": []string{s, k}, "m": map[string]string{s: k}, "a": []any{s, nil, int(n)}}
		for _, html := range []bool{false, true} {
			want, _ := appendEncoded(nil, v, html)
			got, _ := appendJSONValue(nil, v, html)
			if !bytes.Equal(got, want) {
				t.Fatalf("got  %s\nwant %s", got, want)
			}
		}
	})
}

// TestJSONStringWritesWhatEncodingJSONWrites: every byte below 0x80, runes
// around the escaped ones, invalid UTF-8, and random bytes are written as
// encoding/json writes them.
func TestJSONStringWritesWhatEncodingJSONWrites(t *testing.T) {
	strs := []string{"\u2027\u2028\u2029\u202a", "\xed\xa0\x80", "\xf4\x90\x80\x80", "a\xc3", "\xc3(", "\U0010ffff", "\u007f\u0080"}
	for c := range 0x80 {
		strs = append(strs, string(rune(c)), "x"+string(rune(c))+"y")
	}
	r := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		b := make([]byte, r.IntN(24))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		strs = append(strs, string(b))
	}
	for _, s := range strs {
		for _, html := range []bool{false, true} {
			want, _ := appendEncoded(nil, s, html)
			if got := AppendJSONString(nil, s, html); !bytes.Equal(got, want) {
				t.Fatalf("%q (html %v): got %s, want %s", s, html, got, want)
			}
		}
	}
}

func FuzzJSONString(f *testing.F) {
	f.Add("quote \" <tag> \u2028 \xff")
	f.Fuzz(func(t *testing.T, s string) {
		for _, html := range []bool{false, true} {
			want, _ := appendEncoded(nil, s, html)
			if got := AppendJSONString(nil, s, html); !bytes.Equal(got, want) {
				t.Fatalf("%q (html %v): got %s, want %s", s, html, got, want)
			}
		}
	})
}
