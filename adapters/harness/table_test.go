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
		// A reading name must be all reading words: one unknown word, or a
		// writer's word, and the paths are writes.
		{"mcp__x__read_and_truncate", `{"path":"hook-loop.json"}`, []string{"hook-loop.json"}, nil, ""},
		{"mcp__x__get_and_clear", `{"path":".hook-loop/events.jsonl"}`, []string{".hook-loop/events.jsonl"}, nil, ""},
		{"mcp__x__list_and_purge", `{"dir":".hook-loop"}`, []string{".hook-loop"}, nil, ""},
		{"mcp__devtools__get_network_request", `{"reqid":1,"filePath":"hook-loop.json"}`, []string{"hook-loop.json"}, nil, ""},
		{"mcp_fetch_download_file", `{"path":"hook-loop.json"}`, []string{"hook-loop.json"}, nil, ""},
		// fetch may save what it fetches where its path says; the server's
		// own name (settings) says nothing of what the tool does.
		{"mcp__web__fetch_file", `{"url":"https://x","path":"hook-loop.json"}`, []string{"hook-loop.json"}, nil, ""},
		{"mcp__settings_server__read_file", `{"path":"a"}`, nil, []string{"a"}, ""},
		// A reading tool's relative path is read from its working folder too.
		{"mcp__x__read_file", `{"cwd":"/s/projects","path":"../keys/k"}`, nil, []string{"/s/projects", "../keys/k", "/s/keys/k"}, "/s/projects"},
		// Every spelling of a working folder is one.
		{"mcp__x__run", `{"command":"rm events.jsonl","working_directory":".hook-loop"}`, nil, []string{".hook-loop"}, ".hook-loop"},
		{"mcp__x__run", `{"command":"rm events.jsonl","root":".hook-loop"}`, nil, []string{".hook-loop"}, ".hook-loop"},
		// Paths are found at every depth: a batch of writes nests them in
		// objects inside lists inside objects.
		{"mcp__fs__write_files", `{"files":[{"path":"a"}]}`, []string{"a"}, nil, ""},
		{"mcp__fs__apply", `{"options":{"targets":[{"path":"hook-loop.json"}]}}`, []string{"hook-loop.json"}, nil, ""},
		{"mcp__fs__apply", `{"batches":[[{"edit":{"file":"hook-loop.json"}}]]}`, []string{"hook-loop.json"}, nil, ""},
		// Deeper down a folder's name is a path like any other, not where
		// the call works.
		{"mcp__x__run", `{"command":"ls","opts":{"cwd":".hook-loop"}}`, []string{".hook-loop"}, nil, ""},
		// A folder is where the call works only for a tool named to run the
		// command its input gives at its top: not for one nested deeper, nor
		// for a tool named for something else (review of 2026-12-04).
		{"mcp__x__wr", `{"directory":".hook-loop","meta":{"cmd":"true"}}`, []string{".hook-loop"}, nil, ""},
		{"mcp__x__deploy", `{"directory":".","cmd":"true"}`, []string{"."}, nil, ""},
		{"mcp__x__run", `{"command":"ls","Root":"."}`, nil, []string{"."}, "."},
		// Keys in any case sort as they do in lower case.
		{"mcp__fs__read_file", `{"path":"a","Destination":"hook-loop.json"}`, []string{"hook-loop.json"}, []string{"a"}, ""},
		{"mcp__fs__read_file", `{"OutputPath":"hook-loop.json"}`, []string{"hook-loop.json"}, nil, ""},
		{"mcp__x__run", `{"command":"ls","CWD":"/w"}`, nil, []string{"/w"}, "/w"},
		// The reference git server: its readers read their repository;
		// any other tool (git_checkout rewrites the tree) changes it.
		{"mcp__git__git_status", `{"repo_path":"/p"}`, nil, []string{"/p"}, "/p"},
		{"mcp__git__git_log", `{"repo_path":"/p","max_count":5}`, nil, []string{"/p"}, "/p"},
		{"mcp__git__git_diff", `{"repo_path":"/p","target":"main"}`, []string{"main", "/p/main"}, []string{"/p"}, "/p"},
		{"mcp__git__git_commit", `{"repo_path":"/p","message":"m"}`, []string{"/p"}, nil, ""},
		{"mcp__git__git_checkout", `{"repo_path":"/p","branch_name":"b"}`, []string{"/p"}, nil, ""},
		// A server's own spellings of a path (review of 2026-12-04): they
		// went unjudged. Serena's relative_path, JetBrains' pathInProject
		// inside its projectPath (where the call works, not a tree write of
		// the project), a move's sourcePath and destinationPath, from and to.
		{"mcp__serena__replace_symbol_body", `{"relative_path":".hook-loop/events.jsonl","body":"x"}`, []string{".hook-loop/events.jsonl"}, nil, ""},
		{"mcp__serena__find_symbol", `{"relative_path":"a.go","name_path":"F"}`, nil, []string{"a.go", "F"}, ""},
		{"mcp__jetbrains__replace_text_in_file", `{"pathInProject":"hook-loop.json","projectPath":"/p","text":"t"}`, []string{"hook-loop.json", "/p/hook-loop.json"}, []string{"/p"}, "/p"},
		{"mcp__x__move", `{"sourcePath":"hook-loop.json","destinationPath":"/tmp/h"}`, []string{"hook-loop.json", "/tmp/h"}, nil, ""},
		{"mcp__x__read_file", `{"filePath":"a","destinationPath":"hook-loop.json"}`, []string{"hook-loop.json"}, []string{"a"}, ""},
		{"mcp__x__rename", `{"from":"hook-loop.json","to":"b"}`, []string{"hook-loop.json", "b"}, nil, ""},
		{"mcp__x__mkdir", `{"folderPath":".hook-loop/x","dirPath":"d","fileName":"f"}`, []string{".hook-loop/x", "d", "f"}, nil, ""},
		{"mcp__x__write", `{"file_content":"hook-loop.json","fileType":"json","text":"a"}`, nil, nil, ""},
	} {
		m := ReadMCP(c.tool, gjson.Parse(c.input))
		if !slices.Equal(m.Writes, c.writes) || !slices.Equal(m.Reads, c.read) || m.Dir != c.dir {
			t.Errorf("%s %s: %+v, want writes %q reads %q dir %q", c.tool, c.input, m, c.writes, c.read, c.dir)
		}
	}
}

// TestMCPCommands: every command an unknown tool's input holds is judged,
// each as Command reads one: every top-level key of a command's name (a
// second spelling, or the same in another case, may be the one the server
// runs), each nested one as a command line of its own (not glued into one
// argv, nor judged as a path: {"cmd": "."} is no tree write), a plural
// key's list as one command line each.
func TestMCPCommands(t *testing.T) {
	for _, c := range []struct {
		input, cmd string
		odd        []string
		top        bool
	}{
		{`{"command":"ls","cmd":"rm -f hook-loop.json"}`, "ls\nrm -f hook-loop.json", nil, true},
		{`{"command":"ls","COMMAND":"rm x"}`, "ls\nrm x", nil, true},
		{`{"args":{"cmd":"."}}`, ".", nil, false},
		{`{"steps":[{"run":"make"},{"run":"rm x"}]}`, "make\nrm x", nil, false},
		{`{"commands":["make","rm x"]}`, "make\nrm x", nil, true},
		{`{"argv":["rm","-f","x y"]}`, "rm -f 'x y'", nil, true},
		{`{"command":{"a":"rm x"}}`, "'rm x'\nrm x", []string{"rm x"}, true},
		{`{"run":true,"script":null,"n":{"cmd":7}}`, "", nil, false},
	} {
		m := ReadMCP("mcp__x__tool", gjson.Parse(c.input))
		_, _, top := mcpCommand(gjson.Parse(c.input))
		if m.Command != c.cmd || !slices.Equal(m.Odd, c.odd) || top != c.top {
			t.Errorf("%s: command %q odd %q top %v, want %q %q %v", c.input, m.Command, m.Odd, top, c.cmd, c.odd, c.top)
		}
	}
}
