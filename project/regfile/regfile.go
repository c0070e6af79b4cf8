// Package regfile opens files in places an agent can write — the event log,
// its index and lock, the loop file, Codex's session rollout — without
// waiting on them and only when they are regular files: one swapped for a
// FIFO would hold the open until a writer came, a device the reads, and the
// hook until the harness killed it (and a killed hook lets the agent go on).
package regfile

import (
	"errors"
	"io/fs"
	"os"
)

// Why Open refuses a file.
var (
	ErrDir        = errors.New("is a directory")
	ErrNotRegular = errors.New("not a regular file")
	ErrSymlink    = errors.New("is a symbolic link")
)

// Open is os.OpenFile(path, flag, perm) that does not wait (O_NONBLOCK,
// which a regular file ignores) and keeps the file only if it is a regular
// file, with what its fstat says of it. The check is of the open file, not
// a stat before the open, so the file cannot be swapped in between. A
// refused file is a *fs.PathError whose Err is ErrDir or ErrNotRegular; a
// missing file is an error that errors.Is fs.ErrNotExist.
func Open(path string, flag int, perm fs.FileMode) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, Flag(flag, false), perm)
	if err != nil {
		return nil, nil, err
	}
	return regular(f, path)
}

// OpenNoFollow is Open that refuses a symbolic link at path (ErrSymlink)
// instead of opening what it points to: for hook-loop's own files, which a
// link would send elsewhere (the log written through it to any file the
// user can write).
func OpenNoFollow(path string, flag int, perm fs.FileMode) (*os.File, fs.FileInfo, error) {
	if !kernelNoFollow && isLink(path) {
		return nil, nil, refuse(path, ErrSymlink)
	}
	f, err := os.OpenFile(path, Flag(flag, true), perm)
	if err != nil {
		// The kernel's answer to a link differs by system (ELOOP, EMLINK,
		// EFTYPE): a look at what is there names it. A missing file is not
		// one.
		if kernelNoFollow && !errors.Is(err, fs.ErrNotExist) && isLink(path) {
			return nil, nil, refuse(path, ErrSymlink)
		}
		return nil, nil, err
	}
	return regular(f, path)
}

// Flag is the flag Open (noFollow: OpenNoFollow) hands os.OpenFile, for a
// library that opens the file itself (a file lock). What it opened is then
// the caller's to check: it may not be a regular file.
func Flag(flag int, noFollow bool) int {
	flag |= noWait
	if noFollow {
		flag |= noFollowFlag
	}
	return flag
}

// regular keeps f only if it is a regular file.
func regular(f *os.File, path string) (*os.File, fs.FileInfo, error) {
	fi, err := f.Stat()
	switch {
	case err != nil:
	case fi.IsDir():
		err = refuse(path, ErrDir)
	case !fi.Mode().IsRegular():
		err = refuse(path, ErrNotRegular)
	default:
		return f, fi, nil
	}
	f.Close()
	return nil, nil, err
}

func isLink(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode()&fs.ModeSymlink != 0
}

// refuse is the error for a file Open will not use.
func refuse(path string, why error) error { return &fs.PathError{Op: "open", Path: path, Err: why} }
