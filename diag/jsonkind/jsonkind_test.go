package jsonkind

import (
	"testing"

	"github.com/tidwall/gjson"
)

func TestKinds(t *testing.T) {
	doc := `{"n":null,"b":true,"f":false,"i":3,"s":"x","a":[],"o":{}}`
	for path, want := range map[string][2]string{
		"n": {"null", "null"}, "b": {"boolean", "a boolean"}, "f": {"boolean", "a boolean"},
		"i": {"number", "a number"}, "s": {"string", "a string"}, "a": {"array", "an array"},
		"o": {"object", "an object"}, "missing": {"nothing", "nothing"},
	} {
		v := gjson.Get(doc, path)
		if got := Name(v); got != want[0] {
			t.Errorf("Name(%s) = %q, want %q", path, got, want[0])
		}
		if got := Of(v); got != want[1] {
			t.Errorf("Of(%s) = %q, want %q", path, got, want[1])
		}
	}
}
