//go:build unix

package eventlog

import (
	"os"
	"syscall"
)

// openFile is os.OpenFile without the poller registration os.OpenFile tries for
// every file (four fcntl and an epoll_ctl that fails for a regular file): a hook
// opens four files per event and the budget is milliseconds.
func openFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	for {
		fd, err := syscall.Open(path, flag|syscall.O_CLOEXEC, uint32(perm.Perm()))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
		return os.NewFile(uintptr(fd), path), nil
	}
}

// renameFile is os.Rename without its extra lstat of the target.
func renameFile(from, to string) error {
	if err := syscall.Rename(from, to); err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}
