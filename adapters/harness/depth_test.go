package harness

import (
	"strings"
	"testing"
)

func TestCheckNesting(t *testing.T) {
	for _, c := range []struct {
		in string
		ok bool
	}{
		{`{"a":[1,{"b":2}]}`, true},
		{strings.Repeat("[", MaxNesting) + strings.Repeat("]", MaxNesting), true},
		{strings.Repeat("[", MaxNesting+1), false},
		{`{"s":"` + strings.Repeat("[", 5000) + `"}`, true},      // brackets in a string do not nest
		{`{"s":"\"` + strings.Repeat("{", 5000) + `"}`, true},    // nor after an escaped quote
		{`{"s":"\\"` + strings.Repeat("{", MaxNesting+1), false}, // an escaped backslash ends the string
		{strings.Repeat("]", 5000) + strings.Repeat("[", MaxNesting), true},
	} {
		if err := CheckNesting("stdin", c.in, MaxNesting); (err == nil) != c.ok {
			t.Errorf("CheckNesting(%.40q...) = %v, want ok=%v", c.in, err, c.ok)
		}
	}
}
