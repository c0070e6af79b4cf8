package lifecycle

import (
	"path/filepath"
	"strings"

	"github.com/hook-loop/hook-loop/project/userconfig"
)

// OwnedFiles are the files a gated agent may not change because they decide
// what the lifecycle hooks run: the declaration (found as LoadConfig finds it,
// whether or not it exists yet) and the executor files it names (path and
// module entries, and a command's program and script arguments given as
// paths). A declaration that does not load owns only itself.
func OwnedFiles(flag string, getenv func(string) string) []string {
	path, _ := ConfigPath(flag, getenv)
	out := userconfig.Files(path, nil)
	entries, err := ParseFile(path)
	if err != nil {
		return out
	}
	return append(out, executorFiles(entries)...)
}

// DeclarationFiles are the declaration files a hook would read (both default
// names when the path is a default one), without reading them.
func DeclarationFiles(flag string, getenv func(string) string) []string {
	return userconfig.Files(flag, getenv)
}

// ExecutorFiles are the files the loaded declaration's executors run: a hook
// that already loaded it (ForHook) asks the runner instead of parsing the
// declaration a second time.
func (r *Runner) ExecutorFiles() []string { return executorFiles(r.entries) }

func executorFiles(entries []Entry) []string {
	var out []string
	for _, e := range entries {
		if f := e.File(); f != "" && e.Kind() != "command" {
			out = append(out, f)
		}
		if e.Kind() == "command" {
			for _, a := range e.Command {
				switch {
				case filepath.IsAbs(a):
					out = append(out, a)
				case strings.ContainsRune(a, '/') && !strings.HasPrefix(a, "-"):
					out = append(out, filepath.Join(e.Dir, a))
				}
			}
		}
	}
	return out
}
