//go:build darwin

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

func sigOf(st *syscall.Stat_t) fileSig {
	return fileSig{uint64(st.Dev), uint64(st.Ino), st.Size, st.Mtimespec, st.Ctimespec}
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
	var st syscall.Stat_t
	for {
		err := syscall.Lstat(path, &st)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return fileSig{}, false
		}
		return sigOf(&st), true
	}
}
