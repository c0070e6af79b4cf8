// Package userconfig finds the user's hook-loop config file (lifecycle hooks
// and the "store" key) without reading it. It is apart from package lifecycle,
// which parses the file (YAML among others), so that the lean hook binary can
// tell whether a config exists — and hand the hook to hook-loop when it does —
// without linking a YAML parser.
package userconfig

import (
	"os"
	"path/filepath"

	"github.com/hook-loop/hook-loop/project/basedir"
)

// Env names the variable that points at a hooks config file.
const Env = "HOOK_LOOP_CONFIG"

// Path returns the config file to read: the --hooks-config flag, else
// $HOOK_LOOP_CONFIG, else config.yaml or config.json in
// $XDG_CONFIG_HOME/hook-loop (config.json when neither exists). explicit is
// true for the first two, whose absence is an error. getenv is the
// environment lookup (nil: os.Getenv); XDG_CONFIG_HOME is read through it.
func Path(flag string, getenv func(string) string) (path string, explicit bool) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if flag != "" {
		return flag, true
	}
	if p := getenv(Env); p != "" {
		return p, true
	}
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		dir = basedir.ConfigHome()
	}
	yml := filepath.Join(dir, "hook-loop", "config.yaml")
	if _, err := os.Stat(yml); err == nil {
		return yml, false
	}
	return filepath.Join(dir, "hook-loop", "config.json"), false
}

// Files are the declaration files a hook would read (both default names when
// the path is a default one), without reading them.
func Files(flag string, getenv func(string) string) []string {
	path, _ := Path(flag, getenv)
	return files(path)
}

func files(path string) []string {
	if filepath.Base(path) == "config.yaml" || filepath.Base(path) == "config.json" {
		// Either default name would be read: both are the declaration.
		dir := filepath.Dir(path)
		return []string{filepath.Join(dir, "config.yaml"), filepath.Join(dir, "config.json")}
	}
	return []string{path}
}

// Present reports whether a hook would read a user config: an explicit one
// (flag or $HOOK_LOOP_CONFIG, even when missing: reading it is then an error
// only hook-loop reports) or a default file that exists (or is not a plain
// missing file — anything but ENOENT is left to the full reader too).
func Present(flag string, getenv func(string) string) bool {
	path, explicit := Path(flag, getenv)
	if explicit {
		return true
	}
	for _, f := range files(path) {
		if _, err := os.Lstat(f); !os.IsNotExist(err) {
			return true
		}
	}
	return false
}
