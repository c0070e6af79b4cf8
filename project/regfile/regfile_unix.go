//go:build unix

package regfile

import (
	"io"
	"io/fs"
	"syscall"
)

// File is an open regular file. Plain system calls: an *os.File would
// register the descriptor with the runtime's poller (a refused epoll_ctl for
// a regular file) and attach a finalizer — a third of what reading a small
// file cost in the hook server.
type File struct{ fd int }

// Open opens path for reading, without waiting (O_NONBLOCK: a FIFO opens at
// once), and keeps it only if it is a regular file; size is its size then.
// A missing file is an error that errors.Is fs.ErrNotExist.
func Open(path string) (f File, size int64, err error) {
	var fd int
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return File{}, 0, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return File{}, 0, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFREG:
		return File{fd}, st.Size, nil
	case syscall.S_IFDIR:
		err = refuse(path, ErrDir)
	default:
		err = refuse(path, ErrNotRegular)
	}
	syscall.Close(fd)
	return File{}, 0, err
}

// Read reads from the file's offset. A read that returns less than it asked
// for has reached the end — a regular file returns short only there — so it
// says so at once instead of after one more read.
func (f File) Read(b []byte) (int, error) {
	for {
		n, err := syscall.Read(f.fd, b)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, err
		case n < len(b) || n == 0 && len(b) > 0:
			return n, io.EOF
		}
		return n, nil
	}
}

// ReadAt reads len(b) bytes at off, fewer at the end of the file (io.EOF).
func (f File) ReadAt(b []byte, off int64) (int, error) {
	n := 0
	for n < len(b) {
		m, err := syscall.Pread(f.fd, b[n:], off+int64(n))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return n, err
		}
		if m == 0 {
			return n, io.EOF
		}
		n += m
	}
	return n, nil
}

// Close closes the file.
func (f File) Close() error { return syscall.Close(f.fd) }
