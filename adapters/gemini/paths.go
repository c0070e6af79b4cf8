package gemini

import (
	"os"
	"path"
	"path/filepath"
	"strings"
)

// spellings are the paths Gemini CLI 0.61's file tools may take a file_path
// for (resolveDefensiveToolPath): NUL bytes dropped, and a leading "@" (and
// the slashes after it) dropped when no file of the literal name exists.
// Both are judged: whether that file exists is the harness's to see when
// the tool runs.
func spellings(p string) []string {
	clean := strings.ReplaceAll(p, "\x00", "")
	out := []string{clean}
	if len(clean) > 1 && clean[0] == '@' {
		if s := strings.TrimLeft(clean[1:], `/\`); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// maxSearchDirs and maxSearchEntries bound the walk of corrected. Gemini
// CLI's own search stops after 50 folders that its ignore files let
// through; this walk skips none, so past either bound (some 2000 ignored
// folders, or a folder of 10,000 entries) it cannot say which file replace
// would edit, and reports the whole workspace instead.
const (
	maxSearchDirs    = 2000
	maxSearchEntries = 10000
)

// corrected are the files replace may edit for the relative file_path p
// when no file of that name exists under the project (correctPath): any
// file of the workspace of p's base name whose path ends in p, folders
// starting with a dot included ("settings.json" can be .gemini/settings.json,
// "@/proj/hook-loop.json" the project's hook-loop.json). Every such file is
// reported; Gemini CLI edits one when it finds exactly one. A walk cut short
// reports root itself: the file may be any in it.
func corrected(root, p string) []string {
	if root == "" || filepath.IsAbs(p) {
		return nil
	}
	if _, err := os.Lstat(filepath.Join(root, p)); err == nil {
		return nil
	}
	target := strings.ReplaceAll(p, `\`, "/")
	base := path.Base(p)
	if base == "." || base == "/" || base == ".." {
		return nil
	}
	var out []string
	queue := []string{root}
	for i := 0; i < len(queue); i++ {
		if i == maxSearchDirs {
			return append(out, root)
		}
		entries, more := readDirCapped(queue[i], maxSearchEntries)
		if more {
			return append(out, root)
		}
		for _, e := range entries {
			full := filepath.Join(queue[i], e.Name())
			switch {
			case e.IsDir():
				queue = append(queue, full)
			case e.Name() == base && strings.HasSuffix(strings.ReplaceAll(full, `\`, "/"), target):
				out = append(out, full)
			}
		}
	}
	return out
}

// readDirCapped reads at most n entries of dir; more says it holds more. An
// unreadable folder reads as empty, as Gemini CLI's search skips it.
func readDirCapped(dir string, n int) (entries []os.DirEntry, more bool) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	entries, _ = f.ReadDir(n + 1)
	if len(entries) > n {
		return entries[:n], true
	}
	return entries, false
}
