package eventlog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/hook-loop/hook-loop/project/regfile"
)

// openFile opens one of hook-loop's own files: never through a symbolic
// link, never waiting on a FIFO, and only a regular file (regfile) — the log
// pointed at /dev/null or a pipe must fail loudly, not swallow or hang every
// event. The FileInfo is of the open file: the size the index compares and
// the identity it records.
func openFile(path string, flag int, perm os.FileMode) (*os.File, fs.FileInfo, error) {
	f, fi, err := regfile.OpenNoFollow(path, flag, perm)
	switch {
	case errors.Is(err, regfile.ErrSymlink):
		return nil, nil, fmt.Errorf("refusing %s: it is a symbolic link (hook-loop opens only its own regular files)", path)
	case errors.Is(err, regfile.ErrNotRegular):
		return nil, nil, notRegular(path)
	}
	return f, fi, err
}

// stillAt reports whether path is, without following a link, the regular
// file was is, and returns what lstat says of it: an Update that kept the
// log open then goes on with it instead of opening it again.
func stillAt(path string, was fs.FileInfo) (fs.FileInfo, bool) {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	return fi, os.SameFile(fi, was)
}
