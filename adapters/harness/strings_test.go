package harness

import (
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// Strings and mcpCommand find a string at any depth the input may nest:
// a bound of their own would let a path or a command hide below it.
func TestStringsAtAnyDepth(t *testing.T) {
	in := strings.Repeat(`{"a":[`, MaxNesting/2-1) + `"deep"` + strings.Repeat(`]}`, MaxNesting/2-1)
	if err := CheckNesting("in", in, MaxNesting); err != nil {
		t.Fatal(err)
	}
	if got := Strings(gjson.Parse(in)); !slices.Equal(got, []string{"deep"}) {
		t.Errorf("Strings: %q", got)
	}
	if got := Strings(gjson.Parse(`7`)); got != nil {
		t.Errorf("Strings(7): %q", got)
	}
	deepCmd := strings.Repeat(`{"a":[`, MaxNesting/2-1) + `{"cmd":"rm x"}` + strings.Repeat(`]}`, MaxNesting/2-1)
	if cmd, _, top := mcpCommand(gjson.Parse(deepCmd)); cmd != "rm x" || top {
		t.Errorf("mcpCommand: %q top %v", cmd, top)
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
	}
}

// BenchmarkReadMCPFlat: a large file written through an MCP tool.
func BenchmarkReadMCPFlat(b *testing.B) {
	in := `{"path":"a.txt","content":"` + strings.Repeat("x", 8<<20) + `"}`
	v := gjson.Parse(in)
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		ReadMCP("mcp__x__write", v)
	}
}
