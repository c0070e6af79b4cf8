package harness

import (
	"path/filepath"
	"strings"

	"github.com/hook-loop/hook-loop/loop/guard/shell"
	"github.com/tidwall/gjson"
)

// Tool inputs are judged on what they hold, whatever their shape: every
// adapter reads a command and odd-shaped fields the same way.

// Command reads a tool input's command: a string as it is, a list of
// strings as the argv it is (quoted into one command line), nothing when
// absent. Anything else is no command hook-loop can read, so every string in
// it comes back as odd, to be judged as a path written.
func Command(v gjson.Result) (cmd string, odd []string) {
	switch {
	case !v.Exists() || v.Type == gjson.Null:
		return "", nil
	case v.Type == gjson.String:
		return v.Str, nil
	case v.IsArray() && AllStrings(v):
		var argv []string
		v.ForEach(func(_, w gjson.Result) bool { argv = append(argv, w.Str); return true })
		return shell.JoinArgv(argv), nil
	}
	// Any other shape is judged on what it holds both ways: its strings as one
	// argv ({"argv": ["sh", "-c", "rm x"]}) and each as a command line of its
	// own ({"cmd": "rm x", "cwd": "/"}), and each again as a path written.
	odd = Strings(v)
	if len(odd) == 0 {
		return "", nil
	}
	return shell.JoinArgv(odd) + "\n" + strings.Join(odd, "\n"), odd
}

// AllStrings reports whether every item of the array v is a string.
func AllStrings(v gjson.Result) bool {
	ok := true
	v.ForEach(func(_, w gjson.Result) bool { ok = w.Type == gjson.String; return ok })
	return ok
}

// Strings are the strings in v, at any depth.
func Strings(v gjson.Result) []string { return stringsIn(v, 0) }

// stringsIn is Strings to a bound (input nesting is capped before decoding;
// this bound only keeps the walk short).
func stringsIn(v gjson.Result, depth int) []string {
	if v.Type == gjson.String {
		return []string{v.Str}
	}
	if depth > 64 || !v.IsObject() && !v.IsArray() {
		return nil
	}
	var out []string
	v.ForEach(func(_, w gjson.Result) bool {
		out = append(out, stringsIn(w, depth+1)...)
		return true
	})
	return out
}

// readPathKeys are the arguments read tools (Read, Grep, Glob, LS and their
// kin in every harness) name their file or folder with.
var readPathKeys = []string{"file_path", "filePath", "path", "notebook_path", "notebookPath", "pattern_path", "dir", "directory"}

// ReadPaths are the files and folders a tool that is not a shell or a writer
// names in input, absolute against cwd: the engine refuses hook-loop's
// secrets to them as it does to cat.
func ReadPaths(input gjson.Result, cwd string) []string {
	var out []string
	for _, k := range readPathKeys {
		for _, s := range Strings(input.Get(k)) {
			if s == "" {
				continue
			}
			if !filepath.IsAbs(s) && cwd != "" {
				s = filepath.Join(cwd, s)
			}
			out = append(out, filepath.Clean(s))
		}
	}
	return out
}
