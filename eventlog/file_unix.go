//go:build unix

package eventlog

import (
	"fmt"
	"os"
	"syscall"
)

// openFile opens one of hook-loop's own files: never through a symbolic link
// (O_NOFOLLOW), never blocking on a FIFO (O_NONBLOCK, which a regular file
// ignores), and only a regular file — the log pointed at /dev/null or a pipe
// must fail loudly, not swallow or hang every event. Its own fstat serves
// both the check and the caller (openFileInfo). os.NewFile still asks the
// descriptor's flags and, as O_NONBLOCK is set, tries the runtime's poller
// (an epoll_ctl a regular file fails): clearing the flag first would cost the
// same one system call.
func openFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, _, err := openFileInfo(path, flag, perm)
	return f, err
}

// openFileInfo is openFile that also returns what its fstat found, which
// callers would otherwise ask the kernel for a second time.
func openFileInfo(path string, flag int, perm os.FileMode) (*os.File, openStat, error) {
	for {
		fd, err := syscall.Open(path, flag|syscall.O_CLOEXEC|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, uint32(perm.Perm()))
		if err == syscall.EINTR {
			continue
		}
		if err == syscall.ELOOP {
			return nil, openStat{}, fmt.Errorf("refusing %s: it is a symbolic link (hook-loop opens only its own regular files)", path)
		}
		if err != nil {
			return nil, openStat{}, &os.PathError{Op: "open", Path: path, Err: err}
		}
		var st syscall.Stat_t
		if err := syscall.Fstat(fd, &st); err != nil {
			syscall.Close(fd)
			return nil, openStat{}, &os.PathError{Op: "stat", Path: path, Err: err}
		}
		if m := st.Mode & syscall.S_IFMT; m != syscall.S_IFREG {
			syscall.Close(fd)
			if m == syscall.S_IFDIR {
				return nil, openStat{}, &os.PathError{Op: "open", Path: path, Err: syscall.EISDIR}
			}
			return nil, openStat{}, notRegular(path)
		}
		return os.NewFile(uintptr(fd), path), openStat{size: int64(st.Size), dev: uint64(st.Dev), ino: uint64(st.Ino)}, nil
	}
}

// openStat is what openFileInfo's fstat found of the open file.
type openStat struct {
	size     int64
	dev, ino uint64
}

// fileID is fileID of the open file.
func (s openStat) fileID() string { return fmt.Sprintf("%d:%d", s.dev, s.ino) }

// identified reports whether s names a file (device and inode).
func (s openStat) identified() bool { return s.dev|s.ino != 0 }

// stillAt reports whether path is, without following a link, the regular
// file whose identity is was: an Update that kept the log open then goes on
// with it instead of opening it again. What lstat says of it is returned.
func stillAt(path string, was openStat) (openStat, bool) {
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return openStat{}, false
	}
	now := openStat{size: int64(st.Size), dev: uint64(st.Dev), ino: uint64(st.Ino)}
	return now, now.dev == was.dev && now.ino == was.ino
}

// lockFlag opens the lock file as openFile opens the others.
const lockFlag = os.O_CREATE | os.O_RDONLY | syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// renameFile is os.Rename without its extra lstat of the target.
func renameFile(from, to string) error {
	if err := syscall.Rename(from, to); err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}
