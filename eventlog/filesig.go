//go:build linux || darwin

package eventlog

import (
	"os"
	"syscall"
)

// fileSig is what Cache compares to tell a file untouched: identity, size,
// and modification and change times (see Cache).
type fileSig struct {
	dev, ino     uint64
	size         int64
	mtime, ctime syscall.Timespec
}

func fileSigOf(fi os.FileInfo) (fileSig, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileSig{}, false
	}
	return sigOf(st), true
}

// lstatSig is the signature of the file at path, not following a link.
func lstatSig(path string) (fileSig, bool) {
	fi, err := os.Lstat(path)
	if err != nil {
		return fileSig{}, false
	}
	return fileSigOf(fi)
}
