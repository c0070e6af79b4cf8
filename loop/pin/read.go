package pin

import (
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/hook-loop/hook-loop/project/regfile"
)

// readRegular reads the loop file at path whole (up to maxLoopFile), and
// only if it is a regular file (regfile: the open cannot wait on a FIFO, so
// what it opened is looked at once, open, instead of by a stat before it).
func readRegular(path string) ([]byte, error) {
	f, _, err := regfile.Open(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxLoopFile+1))
	if err != nil {
		return data, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	if len(data) > maxLoopFile {
		err = &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("larger than %d MiB", maxLoopFile>>20)}
	}
	return data, err
}
