//go:build !unix

package regfile

import (
	"os"
	"syscall"
)

// File is an open regular file.
type File struct{ f *os.File }

// Open opens path for reading, without waiting where the system knows
// O_NONBLOCK, and keeps it only if it is a regular file; size is its size
// then. A missing file is an error that errors.Is fs.ErrNotExist.
func Open(path string) (File, int64, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return File{}, 0, err
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
	case fi.IsDir():
		err = refuse(path, ErrDir)
	case !fi.Mode().IsRegular():
		err = refuse(path, ErrNotRegular)
	default:
		return File{f}, fi.Size(), nil
	}
	f.Close()
	return File{}, 0, err
}

// Read reads from the file's offset.
func (f File) Read(b []byte) (int, error) { return f.f.Read(b) }

// ReadAt reads len(b) bytes at off, fewer at the end of the file (io.EOF).
func (f File) ReadAt(b []byte, off int64) (int, error) { return f.f.ReadAt(b, off) }

// Close closes the file.
func (f File) Close() error { return f.f.Close() }
