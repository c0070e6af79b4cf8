//go:build unix

package guard

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxLinkScan bounds the files of protected folders compared with one hard
// link.
const maxLinkScan = 512

// sameFileAs returns the protected entry that path is another name of (a
// regular file with more than one hard link, the same inode as a protected
// file or one in a protected folder), or "". A hard link made before the
// guard saw it would otherwise make the log writable under a new name.
func sameFileAs(path string, protected []string) string {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || st.Nlink < 2 {
		return ""
	}
	seen := 0
	for _, f := range protected {
		if !strings.HasSuffix(f, string(filepath.Separator)) {
			if pfi, err := os.Lstat(f); err == nil && os.SameFile(fi, pfi) {
				return f
			}
			continue
		}
		hit := ""
		_ = filepath.WalkDir(strings.TrimSuffix(f, string(filepath.Separator)), func(p string, d fs.DirEntry, err error) error {
			if err != nil || seen > maxLinkScan {
				return filepath.SkipDir
			}
			seen++
			if d.Type().IsRegular() {
				if pfi, err := d.Info(); err == nil && os.SameFile(fi, pfi) {
					hit = p
					return filepath.SkipAll
				}
			}
			return nil
		})
		if hit != "" {
			return hit
		}
	}
	return ""
}
