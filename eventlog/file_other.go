//go:build !unix

package eventlog

import (
	"fmt"
	"os"
)

// openFile opens one of hook-loop's own files, refusing a symbolic link and
// anything but a regular file (see file_unix.go). Without O_NOFOLLOW the link
// check is an Lstat before the open.
func openFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return nil, fmt.Errorf("refusing %s: it is a symbolic link (hook-loop opens only its own regular files)", path)
	}
	f, err := os.OpenFile(path, flag, perm)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, notRegular(path)
	}
	return f, nil
}

// openStat is the size of the file openFileInfo opened; no identity is
// cheap to read here (fileID).
type openStat struct{ size int64 }

func (openStat) fileID() string { return "" }

func (openStat) identified() bool { return false }

// stillAt is never sure here: without an identity to compare, a kept log
// is not taken for the one at path, and the log is opened again.
func stillAt(string, openStat) (openStat, bool) { return openStat{}, false }

// openFileInfo is openFile that also returns the file's size.
func openFileInfo(path string, flag int, perm os.FileMode) (*os.File, openStat, error) {
	f, err := openFile(path, flag, perm)
	if err != nil {
		return nil, openStat{}, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, openStat{}, err
	}
	return f, openStat{size: fi.Size()}, nil
}

const lockFlag = os.O_CREATE | os.O_RDONLY

func renameFile(from, to string) error { return os.Rename(from, to) }
