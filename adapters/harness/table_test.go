package harness

import (
	"slices"
	"testing"

	"github.com/tidwall/gjson"
)

func TestTable(t *testing.T) {
	tb := Table{{"a", "A"}, {"b", "B"}}
	if got, ok := tb.Lookup("b"); !ok || got != "B" {
		t.Errorf(`Lookup("b") = %q, %v`, got, ok)
	}
	if got, ok := tb.Lookup("c"); ok || got != "" {
		t.Errorf(`Lookup("c") = %q, %v`, got, ok)
	}
	if err := tb.Check(); err != nil {
		t.Error(err)
	}
	if err := append(tb, [2]string{"a", "X"}).Check(); err == nil {
		t.Error("Check passed a name listed twice")
	}
}

// mcpPathKey was a map; these are its entries.
func TestMCPPathKeyKeepsEveryEntry(t *testing.T) {
	for _, k := range []string{"path", "file_path", "filePath", "target", "destination", "source", "paths", "file", "uri", "cwd"} {
		if !mcpPathKey(k) {
			t.Errorf("mcpPathKey(%q) = false", k)
		}
	}
	if mcpPathKey("content") {
		t.Error(`mcpPathKey("content") = true`)
	}
}

// TestReadMCPSortsArguments: a working folder is read and the command's
// folder, a reader's paths are read, a writer's (and an unknown tool's) are
// written, a relative one also from the working folder; the "mcp" prefix
// (which holds "cp") does not make every tool a writer.
func TestReadMCPSortsArguments(t *testing.T) {
	for _, c := range []struct {
		tool, input  string
		writes, read []string
		dir          string
	}{
		{"mcp__fs__list_directory", `{"path":"."}`, nil, []string{"."}, ""},
		{"mcp__fs__readFile", `{"file":"a"}`, nil, []string{"a"}, ""},
		{"mcp__fs__move_file", `{"source":".hook-loop","destination":"/tmp/x"}`, []string{".hook-loop", "/tmp/x"}, nil, ""},
		{"mcp__fs__write_file", `{"path":"x","cwd":"/w"}`, []string{"x", "/w/x"}, []string{"/w"}, "/w"},
		{"mcp__fs__delete", `{"directory":"d"}`, []string{"d"}, nil, ""},
		{"mcp__sh__exec", `{"command":"ls","directory":"d"}`, nil, []string{"d"}, "d"},
		{"mcp__x__process", `{"path":"."}`, []string{"."}, nil, ""},
		{"mcp__x__rm", `{"path":"a"}`, []string{"a"}, nil, ""},
		{"mcp__web__fetch_url", `{"url":"https://x","output_path":"hook-loop.json"}`, []string{"hook-loop.json"}, nil, ""},
		{"mcp__fs__read", `{"path":{"p":"q"}}`, []string{"q"}, nil, ""},
	} {
		m := ReadMCP(c.tool, gjson.Parse(c.input))
		if !slices.Equal(m.Writes, c.writes) || !slices.Equal(m.Reads, c.read) || m.Dir != c.dir {
			t.Errorf("%s %s: %+v, want writes %q reads %q dir %q", c.tool, c.input, m, c.writes, c.read, c.dir)
		}
	}
}
