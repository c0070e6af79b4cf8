package harness

import (
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/hook-loop/hook-loop/diag/jsonkind"
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

// Strings are the strings in v, at any depth (object keys are not): how
// deep a hook's input may nest at all is MaxNesting's to say.
func Strings(v gjson.Result) []string {
	switch {
	case v.Type == gjson.String:
		return []string{v.Str}
	case !v.IsObject() && !v.IsArray():
		return nil
	}
	var out []string
	v.ForEach(func(_, w gjson.Result) bool {
		out = append(out, Strings(w)...)
		return true
	})
	return out
}

// keyedStrings are the strings in v under a key match says yes to, at any
// depth: the key's string, or every string of the object or array it holds.
func keyedStrings(v gjson.Result, match func(key string) bool) []string {
	if !v.IsObject() && !v.IsArray() {
		return nil
	}
	var out []string
	v.ForEach(func(k, w gjson.Result) bool {
		if k.Type == gjson.String && match(k.Str) {
			out = append(out, Strings(w)...)
		} else {
			out = append(out, keyedStrings(w, match)...)
		}
		return true
	})
	return out
}

// readPathKeys are the arguments read tools (Read, Grep, Glob, LS and their
// kin in every harness) name their files or folders with: Qwen Code's
// read_file takes absolute_path, Gemini CLI's folder tools dir_path and its
// read_many_files include (paths in earlier releases).
var readPathKeys = []string{"file_path", "filePath", "path", "paths", "absolute_path", "dir_path", "notebook_path", "notebookPath", "pattern_path", "dir", "directory", "include"}

// ReadPaths are the files and folders a tool that is not a shell or a writer
// names in input: the engine refuses hook-loop's secrets to them as it does
// to cat.
func ReadPaths(input gjson.Result) []string {
	var out []string
	for _, k := range readPathKeys {
		for _, s := range Strings(input.Get(k)) {
			// Trimmed, as Claude Code's file tools trim theirs; otherwise as
			// given: the guard resolves it as the shell would (~, .., links).
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// HookObject reads a hook's stdin in the shape Claude Code and Gemini CLI
// share: one JSON object naming its event in hook_event_name. event (the
// --event flag) wins over the payload's name. who names the harness in
// errors ("Gemini CLI"), example is one of its events.
func HookObject(input []byte, event, who, example string) (root gjson.Result, trimmed, native string, err error) {
	trimmed = strings.TrimSpace(string(input))
	if trimmed == "" {
		return root, "", "", fmt.Errorf("stdin is empty: expected the JSON object %s writes to a hook", who)
	}
	if !gjson.Valid(trimmed) {
		return root, "", "", fmt.Errorf("stdin is not valid JSON: expected one JSON object")
	}
	root = gjson.Parse(trimmed)
	if !root.IsObject() {
		return root, "", "", fmt.Errorf("$ is %s: expected a JSON object", jsonkind.Of(root))
	}
	name := root.Get("hook_event_name")
	if name.Exists() && name.Type != gjson.Null && name.Type != gjson.String {
		return root, "", "", fmt.Errorf("$.hook_event_name is %s: expected a string", jsonkind.Of(name))
	}
	native = event
	if native == "" {
		native = name.String()
	}
	if native == "" {
		return root, "", "", fmt.Errorf("$.hook_event_name is missing and no --event was given: expected the event name, e.g. %s", example)
	}
	return root, trimmed, native, nil
}

// mcpPathKey: the argument names MCP servers give the files a tool works
// on, in any case (Path, FILE). The engine judges each as a write: an MCP
// tool's effect is unknown, so a path it names may be one it changes.
func mcpPathKey(k string) bool {
	switch strings.ToLower(k) {
	case "path", "file_path", "filepath", "target", "destination", "source", "paths",
		"file", "files", "filename", "file_name", "uri", "notebook_path", "target_file",
		"dest", "dst", "src", "new_path", "old_path", "newpath", "oldpath", "target_path", "targetpath",
		"output_path", "outputpath", "dir", "directory", "folder", "cwd", "workdir", "repo_path", "repopath",
		"working_directory", "workingdirectory", "working_dir", "workingdir", "root":
		return true
	}
	return false
}

// mcpCommandKey: the argument names MCP servers give a shell command.
func mcpCommandKey(k string) bool {
	switch strings.ToLower(k) {
	case "command", "cmd", "script":
		return true
	}
	return false
}

// MCPCommand is the shell command an MCP tool's input holds, as Command
// reads it: under command, or the cmd or script key other servers use. A
// command nested deeper ({"steps": [{"command": ...}]}) may run too, so its
// strings are judged as an odd shape's are: as one argv, each as a command
// line, each as a path written.
func MCPCommand(input gjson.Result) (cmd string, odd []string) {
	for _, name := range []string{"command", "cmd", "script"} {
		var v gjson.Result
		input.ForEach(func(k, w gjson.Result) bool {
			if strings.EqualFold(k.Str, name) && w.Type != gjson.Null {
				v = w
			}
			return !v.Exists()
		})
		if v.Exists() {
			cmd, odd = Command(v)
			break
		}
	}
	var nested []string
	input.ForEach(func(_, v gjson.Result) bool {
		nested = append(nested, keyedStrings(v, mcpCommandKey)...)
		return true
	})
	if len(nested) > 0 {
		if cmd != "" {
			cmd += "\n"
		}
		cmd += shell.JoinArgv(nested) + "\n" + strings.Join(nested, "\n")
		odd = append(odd, nested...)
	}
	return cmd, odd
}

// fileURI is the path of a file:// URI (percent-decoded, as a server
// reads it), or s itself.
func fileURI(s string) string {
	if !strings.HasPrefix(strings.ToLower(s), "file:") {
		return s
	}
	if u, err := url.Parse(s); err == nil && u.Path != "" {
		return u.Path
	}
	return s
}

// mcpPaths reports the path-like arguments of an MCP tool's input, at any
// depth (a batch of writes nests its paths in objects inside lists): a
// string or list of strings under an mcpPathKey, or every string of a value
// of another shape under one (key ""). top says the key is one of the
// input's own.
func mcpPaths(obj gjson.Result, top bool, add func(key, s string, top bool)) {
	obj.ForEach(func(k, v gjson.Result) bool {
		path := k.Type == gjson.String && mcpPathKey(k.Str)
		switch {
		case path && v.Type == gjson.String:
			add(k.Str, v.Str, top)
		case path && v.IsArray() && AllStrings(v):
			v.ForEach(func(_, item gjson.Result) bool {
				add(k.Str, item.Str, top)
				return true
			})
		case path:
			// Not the string or list of strings a path argument is: every
			// string in it may be a path.
			for _, s := range Strings(v) {
				add("", s, false)
			}
		case v.IsObject() || v.IsArray():
			// An array's bare strings are not paths; its objects and arrays
			// are looked into.
			mcpPaths(v, false, add)
		}
		return true
	})
}

// MCPArgs are the paths an MCP tool's input names, sorted by what the tool
// may do with them.
type MCPArgs struct {
	// Writes are the paths the tool may change: the engine judges each as a
	// write (a folder as a tree write).
	Writes []string
	// Reads are the paths it only works in or reads: the engine refuses
	// hook-loop's secrets to them.
	Reads []string
	// Dir is the working folder its top-level cwd (workdir, directory, ...)
	// names, "" when none: the folder its command runs in.
	Dir string
}

// ReadMCP sorts the path-like arguments of the MCP tool's input. A folder
// the call works in (cwd, workdir; directory, dir, folder, root for a tool
// that reads or runs a command) is read, not written: judged as a
// write, the project root itself would be refused as a tree write of
// hook-loop.json. A relative path the tool changes is judged both from the
// session's folder and from that working folder, and the command runs in it.
// A tool whose own name (the server's part left out) is made only of words
// that say it reads (list, read, search, ...) and of the things it reads
// (file, directory, ...) has every path read but where it puts what it makes
// (destination, output_path, ...) and the strings of an argument of an
// unexpected shape: one unknown word (get_and_clear, get_network_request) and
// its paths are writes. Every other path stays a write: an
// MCP tool's effect is unknown, and whether a path is or holds a protected
// file is the guard's to judge. file:// URIs are reported as their paths.
func ReadMCP(tool string, input gjson.Result) MCPArgs {
	var m MCPArgs
	// A reader by its own name only: all of it reading words and what they
	// read (the server's name, settings_server's "settings", says nothing).
	own := nameWords(toolPart(tool))
	reads := len(own) > 0 && slices.ContainsFunc(own, mcpReaderWord) &&
		!slices.ContainsFunc(own, func(w string) bool { return !mcpReaderWord(w) && !mcpReadNoun(w) })
	// A directory (dir, folder, root) is where the call works only for a
	// reading tool or one that runs a command; else it may be what the tool
	// changes (list_and_purge {"dir": ...}).
	cmd, _ := MCPCommand(input)
	hasCmd := cmd != ""
	var dirs []string
	mcpPaths(input, true, func(key, s string, top bool) {
		s = fileURI(s)
		switch {
		case top && (workKey(key) || folderKey(key) && (reads || hasCmd)):
			m.Reads = append(m.Reads, s)
			dirs = append(dirs, s)
		case reads && !destKey(key):
			m.Reads = append(m.Reads, s)
		default:
			m.Writes = append(m.Writes, s)
		}
	})
	if len(dirs) == 0 {
		return m
	}
	m.Dir = dirs[0]
	for _, d := range dirs[1:] {
		if d != m.Dir {
			// Two working folders: the command runs in one of them, which
			// one is the server's to choose. The others are judged as
			// before, as writes.
			m.Writes = append(m.Writes, d)
		}
	}
	for _, w := range slices.Clone(m.Writes) {
		if !filepath.IsAbs(w) && !strings.HasPrefix(w, "~") {
			m.Writes = append(m.Writes, filepath.Join(m.Dir, w))
		}
	}
	// A relative read too is read there (../keys/k from the state folder).
	for _, r := range slices.Clone(m.Reads) {
		if !filepath.IsAbs(r) && !strings.HasPrefix(r, "~") && r != m.Dir {
			m.Reads = append(m.Reads, filepath.Join(m.Dir, r))
		}
	}
	return m
}

// destKey: the argument names of where a tool puts what it makes, a write
// whatever the tool's name says (fetch_url's output_path).
func destKey(k string) bool {
	switch k {
	case "destination", "dest", "dst", "target", "target_path", "targetPath", "output_path", "outputPath", "new_path", "newPath", "":
		return true
	}
	return false
}

// workKey: the argument names MCP servers give the folder a tool runs in.
func workKey(k string) bool {
	switch k {
	case "cwd", "workdir", "working_directory", "workingDirectory", "working_dir", "workingDir":
		return true
	}
	return false
}

// folderKey: the argument names of a folder a tool works in, or one it
// creates or deletes (a working folder only for a reader or a command).
func folderKey(k string) bool {
	switch k {
	case "directory", "dir", "folder", "root":
		return true
	}
	return false
}

// nameWords are the words of a tool's name, lowercased: split at
// underscores, dashes, dots and lower-to-upper case changes.
func nameWords(tool string) []string {
	tool = camelBreak().ReplaceAllString(tool, "${1}_${2}")
	return strings.FieldsFunc(strings.ToLower(tool), func(r rune) bool {
		return (r < 'a' || r > 'z') && (r < '0' || r > '9')
	})
}

// camelBreak finds a lower-to-upper case change (readFile).
var camelBreak = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`([a-z0-9])([A-Z])`) })

// mcpReaderWord: a word of an MCP tool's name that says it only reads (not
// fetch: a fetcher may save what it fetches where its path says).
func mcpReaderWord(w string) bool {
	switch w {
	case "read", "list", "get", "search", "find", "view", "show", "stat", "info", "glob", "grep", "tree", "ls",
		"cat", "head", "tail", "query", "describe", "inspect", "diff", "status", "count", "exists", "lookup":
		return true
	}
	return false
}

// toolPart is an MCP tool's own name, without the server's: after the last
// "__" (Claude Code's and Codex's mcp__server__tool), else the whole name
// (Gemini CLI's mcp_server_tool cannot be split: its server's words then
// count too).
func toolPart(tool string) string {
	if i := strings.LastIndex(tool, "__"); i >= 0 {
		return tool[i+2:]
	}
	return tool
}

// mcpReadNoun: a word of a reading tool's name that names what it reads.
func mcpReadNoun(w string) bool {
	switch w {
	case "mcp", "file", "files", "dir", "dirs", "directory", "directories", "folder", "folders", "content", "contents",
		"text", "multiple", "many", "by", "path", "paths", "name", "names", "media", "image", "allowed", "recursive":
		return true
	}
	return false
}

// CommandDir is the directory a shell tool's input names for its command to
// run in, under key, the harness's own argument (Gemini CLI's dir_path, Qwen
// Code's directory, opencode's workdir): "" when it names none. Only that
// key: the harness reads no other, so a second spelling the agent adds must
// not speak for it.
func CommandDir(input gjson.Result, key string) string {
	if v := input.Get(gjson.Escape(key)); v.Type == gjson.String {
		return v.Str
	}
	return ""
}
