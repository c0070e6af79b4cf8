package harness

import (
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/tidwall/gjson"
)

// A tool hook-loop does not know (an MCP server's, a plugin's or an
// extension's) does what its server says, which no hook shows: its input is
// judged on what it holds, the commands in it run and the paths in it
// written, unless its keys and its own name say otherwise.

// MCPArgs is what the input of a tool hook-loop does not know holds.
type MCPArgs struct {
	// Command is every shell command the input holds, one after another:
	// "" when it holds none.
	Command string
	// Odd are the strings of a command of an unexpected shape: the engine
	// judges each as a path written too.
	Odd []string
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

// ReadMCP reads the input of a tool hook-loop does not know: its commands
// (under command, cmd, script and their kin, at any depth) and its
// path-like arguments, sorted. A folder the call works in (cwd, workdir,
// repo_path; directory, dir, folder, root for a tool that reads, or for one
// named to run the command its input gives) is read, not written: judged as
// a write, the project root itself would be refused as a tree write of
// hook-loop.json. A relative path the tool changes is judged both from the
// session's folder and from that working folder, and the command runs in it.
// A tool whose own name (the server's part left out) is made only of words
// that say it reads (list, read, search, ...) and of the things it reads
// (file, directory, ...) has every path read but where it puts what it makes
// (destination, output_path, ...) and the strings of an argument of an
// unexpected shape: one unknown word (get_and_clear, get_network_request) and
// its paths are writes. Every other path stays a write: whether a path is or
// holds a protected file is the guard's to judge. file:// URIs are reported
// as their paths.
func ReadMCP(tool string, input gjson.Result) MCPArgs {
	var m MCPArgs
	var top bool
	m.Command, m.Odd, top = mcpCommand(input)
	// A reader by its own name only: all of it reading words and what they
	// read (the server's name, settings_server's "settings", says nothing).
	own := nameWords(toolPart(tool))
	reads := len(own) > 0 && slices.ContainsFunc(own, mcpReaderWord) &&
		!slices.ContainsFunc(own, func(w string) bool { return !mcpReaderWord(w) && !mcpReadNoun(w) })
	// A directory (dir, folder, root) is where the call works only for a
	// reading tool or one named to run the command its input gives;
	// otherwise it may be what the tool changes (list_and_purge {"dir": ...},
	// {"directory": ".hook-loop", "meta": {"cmd": "true"}}).
	runs := top && slices.ContainsFunc(own, mcpRunnerWord)
	var dirs []string
	mcpPaths(input, true, func(kind argKind, s string, top bool) {
		s = fileURI(s)
		switch {
		case top && (kind == workArg || kind == folderArg && (reads || runs)):
			m.Reads = append(m.Reads, s)
			dirs = append(dirs, s)
		case reads && kind != destArg:
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

// mcpCommand is every command in input, each read as Command reads one (a
// string a command line, a list of strings an argv, any other shape judged
// on its strings), one per line; top says one was the input's own. Every
// key is judged, a second spelling ({"command": "ls", "cmd": "rm x"}) and a
// step nested deep ({"steps": [{"run": "rm x"}]}) alike: which one the
// server runs is its own to choose.
func mcpCommand(input gjson.Result) (cmd string, odd []string, top bool) {
	var lines []string
	var walk func(v gjson.Result, own bool)
	walk = func(v gjson.Result, own bool) {
		v.ForEach(func(k, w gjson.Result) bool {
			if k.Type == gjson.String && mcpCommandKey(k.Str) {
				c, o := commandAt(k.Str, w)
				if c != "" {
					lines = append(lines, c)
					top = top || own
				}
				odd = append(odd, o...)
			} else if w.IsObject() || w.IsArray() {
				walk(w, false)
			}
			return true
		})
	}
	if input.IsObject() {
		walk(input, true)
	}
	return strings.Join(lines, "\n"), odd, top
}

// commandAt reads the command under key: a list of strings under a plural
// key (commands, scripts) is a command line each, not one argv.
func commandAt(key string, v gjson.Result) (string, []string) {
	switch strings.ToLower(key) {
	case "commands", "scripts":
		if v.IsArray() && AllStrings(v) {
			return strings.Join(Strings(v), "\n"), nil
		}
	}
	return Command(v)
}

// mcpCommandKey: the argument names tools give a shell command, in any case.
func mcpCommandKey(k string) bool {
	switch strings.ToLower(k) {
	case "command", "cmd", "script", "run", "argv", "commands", "scripts",
		"command_line", "commandline", "shell_command", "shellcommand":
		return true
	}
	return false
}

// argKind is what an argument's name says its value is.
type argKind uint8

const (
	notPath   argKind = iota
	pathArg           // a file the tool works on
	destArg           // where the tool puts what it makes
	workArg           // the folder the tool runs in
	folderArg         // a folder the tool works in, or creates or deletes
)

// keyKind reads an argument's name, in any case (Path, FILE), once per key.
//   - workArg: cwd and its kin, and the project or workspace folder a server
//     works inside (JetBrains' projectPath, workspace_root), where the
//     call's other paths are.
//   - folderArg: a folder a tool works in, or one it creates or deletes (a
//     working folder only for a reader or a command): a git server's
//     repository too, where git_checkout rewrites the tree.
//   - destArg: where a tool puts what it makes, a write whatever the tool's
//     name says (fetch_url's output_path, destinationPath).
//   - pathArg: the files tools work on, and a server's own spellings of
//     them: a name whose words end in path, file, dir, folder or uri, or
//     start with path (relative_path, sourcePath, fileName, pathInProject).
//
// The engine judges every path as a write unless the tool's name or the
// kind says otherwise: an unknown tool's effect is unknown, so a path it
// names may be one it changes.
func keyKind(k string) argKind {
	switch strings.ToLower(k) {
	case "cwd", "workdir", "working_directory", "workingdirectory", "working_dir", "workingdir":
		return workArg
	case "directory", "dir", "folder", "root", "repo_path", "repopath":
		return folderArg
	case "destination", "dest", "dst", "target", "target_path", "targetpath", "output_path", "outputpath",
		"output_file", "outputfile", "output_dir", "outputdir", "out_path", "outpath", "outfile", "out_file",
		"save_path", "savepath", "save_to", "saveto", "new_path", "newpath", "to", "":
		return destArg
	case "path", "file_path", "filepath", "source", "paths", "file", "files", "filename", "file_name",
		"uri", "notebook_path", "notebookpath", "absolute_path", "dir_path", "target_file", "src", "old_path", "oldpath", "from":
		return pathArg
	}
	w := nameWords(k)
	switch {
	case len(w) == 2 && (w[0] == "project" || w[0] == "workspace") &&
		slices.Contains([]string{"path", "dir", "directory", "folder", "root"}, w[1]):
		return workArg
	case !pathWords(w):
		return notPath
	case len(w) > 1 && slices.Contains([]string{"destination", "dest", "dst", "output", "out", "save"}, w[0]):
		return destArg
	}
	return pathArg
}

// mcpPathKey says an argument's name is one of a path (keyKind).
func mcpPathKey(k string) bool { return keyKind(k) != notPath }

// pathWords says a name's words, joined, end in a word that names a path or
// start with path.
func pathWords(w []string) bool {
	if len(w) == 0 {
		return false
	}
	if w[0] == "path" || w[0] == "paths" {
		return true
	}
	joined := strings.Join(w, "")
	for _, end := range []string{"path", "paths", "file", "files", "filename", "filenames", "dir", "dirs", "directory", "directories", "folder", "folders", "uri", "uris"} {
		if strings.HasSuffix(joined, end) {
			return true
		}
	}
	return false
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

// mcpPaths reports the path-like arguments of a tool's input, at any depth
// (a batch of writes nests its paths in objects inside lists): a string or
// list of strings under a path's name (keyKind), or every string of a
// value of another shape under one (as a destArg). top says the key is one of the input's
// own.
func mcpPaths(obj gjson.Result, top bool, add func(kind argKind, s string, top bool)) {
	obj.ForEach(func(k, v gjson.Result) bool {
		kind := notPath
		if k.Type == gjson.String {
			kind = keyKind(k.Str)
		}
		path := kind != notPath
		switch {
		case path && v.Type == gjson.String:
			add(kind, v.Str, top)
		case path && v.IsArray() && AllStrings(v):
			v.ForEach(func(_, item gjson.Result) bool {
				add(kind, item.Str, top)
				return true
			})
		case path:
			// Not the string or list of strings a path argument is: every
			// string in it may be a path, and one the tool writes.
			for _, s := range Strings(v) {
				add(destArg, s, false)
			}
		case v.IsObject() || v.IsArray():
			// An array's bare strings are not paths; its objects and arrays
			// are looked into.
			mcpPaths(v, false, add)
		}
		return true
	})
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

// mcpReaderWord: a word of a tool's name that says it only reads (not
// fetch: a fetcher may save what it fetches where its path says).
func mcpReaderWord(w string) bool {
	switch w {
	case "read", "list", "get", "search", "find", "view", "show", "stat", "info", "glob", "grep", "tree", "ls",
		"cat", "head", "tail", "query", "describe", "inspect", "diff", "status", "count", "exists", "lookup", "log":
		return true
	}
	return false
}

// mcpRunnerWord: a word of a tool's name that says it runs the command it
// is given.
func mcpRunnerWord(w string) bool {
	switch w {
	case "run", "exec", "execute", "shell", "sh", "bash", "command", "cmd", "terminal", "script", "spawn", "process":
		return true
	}
	return false
}

// toolPart is a tool's own name, without the server's: after the last "__"
// (Claude Code's and Codex's mcp__server__tool), else the whole name
// (Gemini CLI's mcp_server_tool, opencode's server_tool and Copilot CLI's
// server-tool cannot be split: the server's words then count too).
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
		"text", "multiple", "many", "by", "path", "paths", "name", "names", "media", "image", "allowed", "recursive",
		"git", "repo", "repository", "symbol", "symbols", "referencing", "references", "definition", "definitions",
		"overview", "pattern", "for":
		return true
	}
	return false
}
