// Package basedir gives the XDG base directories (state, config, cache) by the
// rules of github.com/adrg/xdg, computed when asked: xdg reads every base and
// user directory (and user-dirs.dirs) in its package init, which each hook
// process would pay for at start-up.
package basedir

import (
	"os"
	"path/filepath"
	"strings"
)

// StateHome is $XDG_STATE_HOME or the platform's default.
func StateHome() string { return envPath("XDG_STATE_HOME", defaults(home()).state) }

// ConfigHome is $XDG_CONFIG_HOME or the platform's default.
func ConfigHome() string { return envPath("XDG_CONFIG_HOME", defaults(home()).config) }

// CacheHome is $XDG_CACHE_HOME or the platform's default.
func CacheHome() string { return envPath("XDG_CACHE_HOME", defaults(home()).cache) }

type dirs struct{ state, config, cache string }

// StateDirEnv names the variable that moves hook-loop's state directory.
const StateDirEnv = "HOOK_LOOP_STATE_DIR"

// HookLoopState is hook-loop's per-user state directory, where the log keys,
// pinned loops, logs kept out of the workspace and the project roster live
// together: $HOOK_LOOP_STATE_DIR, else hook-loop under the XDG state home.
// getenv is os.Getenv outside tests.
func HookLoopState(getenv func(string) string) string {
	if d := getenv(StateDirEnv); d != "" {
		return d
	}
	return filepath.Join(envPathOf(getenv, "XDG_STATE_HOME", defaults(home()).state), "hook-loop")
}

// envPath is xdg's: the variable when it holds an absolute path (after "~"
// expansion), else the fallback.
func envPath(name, fallback string) string { return envPathOf(os.Getenv, name, fallback) }

func envPathOf(getenv func(string) string, name, fallback string) string {
	dir := expandHome(getenv(name))
	if dir != "" && filepath.IsAbs(dir) {
		return dir
	}
	return fallback
}

func expandHome(p string) string {
	if p == "" {
		return p
	}
	if p == "~" {
		return home()
	}
	if rest, ok := strings.CutPrefix(p, "~"); ok && (rest[0] == '/' || rest[0] == filepath.Separator) {
		return filepath.Join(home(), rest[1:])
	}
	return p
}
