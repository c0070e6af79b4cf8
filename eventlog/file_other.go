//go:build !unix

package eventlog

import "os"

func openFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag, perm)
}

func renameFile(from, to string) error { return os.Rename(from, to) }
