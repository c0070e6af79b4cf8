package regfile

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ReadFile reads the regular file at path whole, up to limit bytes, opened
// as Open does: a FIFO or a device put where a file the hook reads should be
// is an error at once, never a wait. A larger file is an error naming the
// limit.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, fi, err := Open(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Sized from the file as os.ReadFile sizes it: one read and one at the
	// end, where io.ReadAll grows its buffer over half a dozen.
	var buf bytes.Buffer
	buf.Grow(int(min(max(fi.Size(), 0), limit)) + bytes.MinRead)
	_, err = buf.ReadFrom(io.LimitReader(f, limit+1))
	data := buf.Bytes()
	if err != nil {
		return data, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	if int64(len(data)) > limit {
		return data, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("larger than %s", size(limit))}
	}
	return data, nil
}

// size says a limit in MiB when it is whole MiB, else in bytes.
func size(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
