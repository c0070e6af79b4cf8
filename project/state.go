package project

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hook-loop/hook-loop/project/basedir"
)

// Where an install keeps a project's state (the event log, and with it the
// log's key and pinned loops): install --state.
const (
	StateProject = "project" // <root>/.hook-loop, inside the workspace
	StateUser    = "user"    // the user's state directory, outside it
)

// UserStateDir is hook-loop's per-user state directory
// (basedir.HookLoopState), the one the log keys are kept in too.
func UserStateDir(getenv func(string) string) string { return basedir.HookLoopState(getenv) }

// UserLogPath is the event log of the project at root when its state is
// kept in the user's state directory: projects/<name>-<hash of the root's
// path>/events.jsonl, one folder per checkout. The path is hashed with its
// symbolic links resolved, so a hook given one spelling of the project and
// `status` run from another find the same log; a log written before that
// under the unresolved spelling is still used while the resolved one has none.
func UserLogPath(root string, getenv func(string) string) string {
	abs, err := filepath.Abs(root)
	if err != nil {
		abs = root
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return userLogPath(abs, getenv)
	}
	p := userLogPath(real, getenv)
	if real != abs {
		if legacy := userLogPath(abs, getenv); !exists(filepath.Dir(p)) && exists(filepath.Dir(legacy)) {
			return legacy
		}
	}
	return p
}

func userLogPath(abs string, getenv func(string) string) string {
	sum := sha256.Sum256([]byte(abs))
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, filepath.Base(abs))
	id := strings.TrimLeft(name, ".") + "-" + hex.EncodeToString(sum[:6])
	return filepath.Join(UserStateDir(getenv), "projects", id, "events.jsonl")
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// LogPathFor is the event log an install with --state state writes into the
// hooks of the project at root; getenv nil reads the process's environment.
func LogPathFor(root, state string, getenv func(string) string) (string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	switch state {
	case "", StateProject:
		return LogPath(root), nil
	case StateUser:
		return UserLogPath(root, getenv), nil
	}
	return "", fmt.Errorf("--state %q: expected %s or %s", state, StateProject, StateUser)
}

// FindLog is the event log of the project at root for the commands that read
// it (status, log, board, reload, the person's controls, doctor) when no flag
// names one: the log in the user's state directory where hooks have written
// one, else the project's own .hook-loop log where one exists (installs with
// --state project, and those from before the user directory was the
// default), else the user directory's, where a new install's hooks will write.
func FindLog(root string, getenv func(string) string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	user := UserLogPath(root, getenv)
	if _, err := os.Lstat(user); err == nil {
		return user
	}
	if _, err := os.Lstat(LogPath(root)); err == nil {
		return LogPath(root)
	}
	return user
}
