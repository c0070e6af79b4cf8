package regfile

import (
	"os"
	"path/filepath"
)

// WriteAtomic writes data to path with permissions perm through a temporary
// file in the same directory, renamed over path: a reader sees the old file
// or the new one, never half of one, and a crash leaves no partial file.
func WriteAtomic(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".hook-loop-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
