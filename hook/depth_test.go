package hook

import (
	"bytes"
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
		if err := checkNesting([]byte(c.in)); (err == nil) != c.ok {
			t.Errorf("checkNesting(%.40q...) = %v, want ok=%v", c.in, err, c.ok)
		}
	}
}

// 8 MiB of "[" is under the stdin cap; before the nesting check it crashed the
// claude and pi hooks with a fatal stack overflow inside their JSON reader.
func TestReadInputRefusesDeepNesting(t *testing.T) {
	deep := bytes.Repeat([]byte("["), MaxInput-1)
	_, err := readInput(bytes.NewReader(deep))
	if err == nil || !strings.Contains(err.Error(), "levels deep") {
		t.Fatalf("readInput(8 MiB of [) = %v", err)
	}
}
