// Package project finds a hook-loop project's root and its default files. Hooks
// run in whatever directory the harness chose (often a subdirectory), so every
// command that works on "the project" starts here.
package project

import (
	"os"
	"path/filepath"
)

// ConfigName is the loop file's name at the project root.
const ConfigName = "hook-loop.json"

// SchemaName is the JSON Schema init writes beside the loop file (its
// "$schema" names it).
const SchemaName = "hook-loop.schema.json"

// StateDir is the folder of hook-loop's own state at the project root.
const StateDir = ".hook-loop"

// Root walks up from dir to the first directory holding hook-loop.json, a
// .hook-loop folder or a .git entry, in that order of preference per level; it
// returns dir itself when none is found.
func Root(dir string) string {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	for d := dir; ; {
		for _, marker := range []string{ConfigName, StateDir, ".git"} {
			if _, err := os.Stat(filepath.Join(d, marker)); err == nil {
				return d
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

// Gated reports whether the project at root has hook-loop set up: a loop file,
// or an event log (a project whose loop file was deleted was gated all the same).
func Gated(root string) bool {
	for _, p := range []string{ConfigPath(root), LogPath(root)} {
		if _, err := os.Lstat(p); err == nil {
			return true
		}
	}
	return false
}

// ConfigPath is the default loop file of a project.
func ConfigPath(root string) string { return filepath.Join(root, ConfigName) }

// LogPath is the default event log of a project.
func LogPath(root string) string { return filepath.Join(root, StateDir, "events.jsonl") }

// TracePath is where hooks run with --record keep their raw input.
func TracePath(root string) string { return filepath.Join(root, StateDir, "trace.jsonl") }
