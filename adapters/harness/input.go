package harness

import (
	"fmt"
	"strings"

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
