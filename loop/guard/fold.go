package guard

import (
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// foldedUnder returns the entry of entries (folders ending in the
// separator) that path reaches only by ignoring case: path spells the entry,
// a path under it, or a folder above it in other cases, and the filesystem
// there ignores case (macOS's default), so the spelling is the same file.
// It is asked only once no exact spelling matched.
func (p *Policy) foldedUnder(path string, entries []string) string {
	sep := string(filepath.Separator)
	for _, f := range entries {
		base := strings.TrimSuffix(f, sep)
		folder := base != f
		var spelled, real string
		switch {
		case len(path) >= len(base) && strings.EqualFold(path[:len(base)], base) &&
			(len(path) == len(base) || folder && path[len(base)] == sep[0]):
			spelled, real = path[:len(base)], base // the entry, or under its folder
		case len(f) > len(path)+1 && strings.EqualFold(f[:len(path)+1], path+sep):
			spelled, real = path, f[:len(path)] // a folder holding the entry (a move, a tree write)
		default:
			continue
		}
		if spelled != real && p.foldsCase(real) {
			return f
		}
	}
	return ""
}

// foldsCase reports whether the filesystem holding path ignores case; the
// Policy's folds when set (tests), else a probe of the disk.
func (p *Policy) foldsCase(path string) bool {
	if p.folds != nil {
		return p.folds(path)
	}
	return foldsCase(path)
}

// foldsCase probes the disk: the nearest existing folder of path is the
// same file when its deepest name with a cased letter is spelled in the
// other case.
func foldsCase(path string) bool {
	d := filepath.Clean(path)
	for {
		if _, err := os.Stat(d); err == nil {
			break
		}
		if d == filepath.Dir(d) {
			return false
		}
		d = filepath.Dir(d)
	}
	for e := d; e != filepath.Dir(e); e = filepath.Dir(e) {
		name := filepath.Base(e)
		swapped := strings.Map(swapCase, name)
		if swapped == name {
			continue
		}
		a, err := os.Stat(e)
		if err != nil {
			return false
		}
		b, err := os.Stat(filepath.Join(filepath.Dir(e), swapped))
		return err == nil && os.SameFile(a, b)
	}
	return false
}

func swapCase(r rune) rune {
	if unicode.IsUpper(r) {
		return unicode.ToLower(r)
	}
	return unicode.ToUpper(r)
}
