package harness

import (
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// Strings and keyedStrings find a string at any depth the input may nest:
// a bound of their own would let a path or a command hide below it.
func TestStringsAtAnyDepth(t *testing.T) {
	in := strings.Repeat(`{"a":[`, MaxNesting/2-1) + `"deep"` + strings.Repeat(`]}`, MaxNesting/2-1)
	if err := CheckNesting("in", []byte(in)); err != nil {
		t.Fatal(err)
	}
	if got := Strings(gjson.Parse(in)); !slices.Equal(got, []string{"deep"}) {
		t.Errorf("Strings: %q", got)
	}
	if got := Strings(gjson.Parse(`7`)); got != nil {
		t.Errorf("Strings(7): %q", got)
	}
	got := keyedStrings(gjson.Parse(`{"x":{"cmd":"a"},"cmd":"top","y":[{"Script":["b",{"z":"c"}]}],"n":1}`), mcpCommandKey)
	if !slices.Equal(got, []string{"a", "top", "b", "c"}) {
		t.Errorf("keyedStrings: %q", got)
	}
}

// BenchmarkReadMCPDeep: an input nested as deep as a hook takes, its 8 MiB
// at the bottom: each level's value is walked again for every level above
// it, which MaxNesting bounds.
func BenchmarkReadMCPDeep(b *testing.B) {
	n := MaxNesting - 3 // the payload's own levels
	in := strings.Repeat(`{"a":`, n) + `{"k":"` + strings.Repeat("x", 8<<20) + `"}` + strings.Repeat(`}`, n)
	v := gjson.Parse(in)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		ReadMCP("mcp__x__write", v)
		MCPCommand(v)
	}
}

// BenchmarkReadMCPFlat: a large file written through an MCP tool.
func BenchmarkReadMCPFlat(b *testing.B) {
	in := `{"path":"a.txt","content":"` + strings.Repeat("x", 8<<20) + `"}`
	v := gjson.Parse(in)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		ReadMCP("mcp__x__write", v)
		MCPCommand(v)
	}
}
