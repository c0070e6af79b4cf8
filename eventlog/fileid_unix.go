//go:build unix

package eventlog

import (
	"fmt"
	"os"
	"syscall"
)

// fileID identifies the log file itself, so an index written for a file that was
// since replaced (moved aside, restored from a backup) is not trusted.
func fileID(fi os.FileInfo) string {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fmt.Sprintf("%d:%d", uint64(st.Dev), uint64(st.Ino))
	}
	return ""
}
