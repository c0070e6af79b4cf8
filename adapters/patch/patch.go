// Package patch reads the target paths out of apply_patch text. Codex (and any
// harness that lets the model run `apply_patch <<'EOF'` through the shell) names
// the files a patch touches only in its section headers, so every path guard has
// to parse them rather than search the text for a protected name.
package patch

import (
	"path/filepath"
	"strings"
)

// Section header markers of the apply_patch format. The path is the rest of the
// line after the marker.
var markers = []string{
	"*** Add File:",
	"*** Update File:",
	"*** Delete File:",
	"*** Move to:",
}

// Paths returns the path of every Add/Update/Delete File header and every Move to
// line in text, in order of appearance, without duplicates. Paths are returned as
// written (relative or absolute). Leading blanks before a marker are tolerated
// because heredocs written with <<- may indent them with tabs.
func Paths(text string) []string {
	var out []string
	seen := map[string]bool{}
	for len(text) > 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		line = strings.TrimLeft(line, " \t")
		if !strings.HasPrefix(line, "*** ") {
			continue
		}
		for _, m := range markers {
			if !strings.HasPrefix(line, m) {
				continue
			}
			p := strings.TrimSpace(line[len(m):])
			if p != "" && !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
			break
		}
	}
	return out
}

// Resolve makes each path absolute against cwd and cleans it. Absolute paths are
// only cleaned. An empty cwd leaves relative paths relative (cleaned).
//
// A path with ".." in it is also given as written, after its cleaned form:
// Codex applies a patch with the system's calls, which take "link/.." to
// the folder above where the link points, not to the folder that holds the
// link, and the guard resolves it as the system does.
func Resolve(cwd string, paths []string) []string {
	if len(paths) == 0 {
		return nil
	}
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if !filepath.IsAbs(p) && cwd != "" {
			p = strings.TrimSuffix(cwd, string(filepath.Separator)) + string(filepath.Separator) + p
		}
		out = append(out, filepath.Clean(p))
		if c := out[len(out)-1]; c != p && hasDotDot(p) {
			out = append(out, p)
		}
	}
	return out
}

// hasDotDot reports whether p has a ".." element.
func hasDotDot(p string) bool {
	for _, e := range strings.Split(filepath.ToSlash(p), "/") {
		if e == ".." {
			return true
		}
	}
	return false
}

// Targets is Paths followed by Resolve: the absolute files a patch writes.
func Targets(text, cwd string) []string { return Resolve(cwd, Paths(text)) }
