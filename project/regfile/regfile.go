// Package regfile opens the files a hook reads from places the agent can
// write — the loop file, Codex's session rollout — without waiting on them
// and only when they are regular files: one swapped for a FIFO would hold
// the open until a writer came, a device the reads, and the hook (in the
// hook server, every hook behind it) until the harness killed it.
package regfile

import (
	"errors"
	"io/fs"
)

// Why Open refuses what it opened.
var (
	ErrDir        = errors.New("is a directory")
	ErrNotRegular = errors.New("not a regular file")
)

// refuse is Open's error for what it opened but will not read: a
// *fs.PathError of op "read", as the reads of a directory or a device fail.
func refuse(path string, why error) error { return &fs.PathError{Op: "read", Path: path, Err: why} }
