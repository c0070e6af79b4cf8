package harness

import (
	"testing"

	"github.com/tidwall/gjson"
)

func TestModel(t *testing.T) {
	for in, want := range map[string]string{
		`{"model":"gpt-test"}`: "gpt-test",
		`{"model":{"id":"x"}}`: "",
		`{"model":null}`:       "",
		`{"other":"gpt-test"}`: "",
		`{"model":7,"x":"y"}`:  "",
		`{"model":"","x":"y"}`: "",
	} {
		if got := Model(gjson.Parse(in)); got != want {
			t.Errorf("Model(%s) = %q, want %q", in, got, want)
		}
	}
}
