//go:build unix

package guard

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxLinkScan bounds the entries of protected folders indexed for one call
// (only a call naming a file with more than one hard link pays for it).
const maxLinkScan = 20000

type inode struct{ dev, ino uint64 }

// links finds hard links to protected files among a call's paths. The
// protected files' inodes are indexed once per call, and only when a path
// has more than one link; each path is looked at once.
type links struct {
	protected []string
	seen      map[string]string
	index     map[inode]string
	truncated string // a protected folder too big to index: links are refused
}

func newLinks(protected []string) *links { return &links{protected: protected} }

// of returns the protected entry that path is another name of (a regular file
// with more than one hard link, the same inode as a protected file or one in
// a protected folder), or "". A hard link made before the guard saw it would
// otherwise make the log writable under a new name.
func (l *links) of(path string) string {
	if hit, ok := l.seen[path]; ok {
		return hit
	}
	if l.seen == nil {
		l.seen = map[string]string{}
	}
	hit := ""
	if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Nlink > 1 {
			l.build()
			if hit = l.index[inode{uint64(st.Dev), uint64(st.Ino)}]; hit == "" {
				hit = l.truncated
			}
		}
	}
	l.seen[path] = hit
	return hit
}

func (l *links) build() {
	if l.index != nil {
		return
	}
	l.index = map[inode]string{}
	add := func(p string, fi fs.FileInfo) {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && fi.Mode().IsRegular() {
			l.index[inode{uint64(st.Dev), uint64(st.Ino)}] = p
		}
	}
	n := 0
	for _, f := range l.protected {
		if !strings.HasSuffix(f, string(filepath.Separator)) {
			if fi, err := os.Lstat(f); err == nil {
				add(f, fi)
			}
			continue
		}
		dir := strings.TrimSuffix(f, string(filepath.Separator))
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if n++; n > maxLinkScan {
				l.truncated = f // too big to know: a hard link here is not let through
				return filepath.SkipAll
			}
			if d.Type().IsRegular() {
				if fi, err := d.Info(); err == nil {
					add(p, fi)
				}
			}
			return nil
		})
	}
}
