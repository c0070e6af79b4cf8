package shell

import (
	"path/filepath"
	"strings"
)

// names are the string literals in code (each whole, and each of its
// blank-separated words) and its bare path-like tokens (with a / or a .).
// Code that builds a path from pieces is not seen: see the package limits.
func names(code string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if s != "" && !seen[s] && len(out) < maxNames {
			seen[s] = true
			out = append(out, s)
		}
	}
	addLit := func(s string) {
		add(s)
		for _, f := range strings.Fields(s) {
			add(strings.Trim(f, `"'(),;`))
		}
	}
	var tok strings.Builder
	flush := func() {
		t := tok.String()
		tok.Reset()
		if strings.ContainsAny(t, "/.") && strings.Trim(t, "0123456789.") != "" {
			add(t)
		}
	}
	for i := 0; i < len(code); i++ {
		c := code[i]
		if c == '\'' || c == '"' || c == '`' {
			flush()
			j := i + 1
			var lit strings.Builder
			for j < len(code) && code[j] != c {
				if code[j] == '\\' && j+1 < len(code) {
					j++
				}
				lit.WriteByte(code[j])
				j++
			}
			addLit(lit.String())
			i = j
			continue
		}
		if isPathByte(c) {
			tok.WriteByte(c)
			continue
		}
		flush()
	}
	flush()
	return out
}

func isPathByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		strings.IndexByte("._-/~*?", c) >= 0 || c >= 0x80
}

// NamesPath returns the protected path that inline code names, if any.
// protected holds absolute paths; one ending in "/" is a folder and protects
// everything under it. A name matches a protected path when, taken from the
// code's directory, it is the path, lies under a protected folder, is a
// folder holding the path, or is a glob matching it; or when the path ends in
// the name (code may chdir first).
//
// Shell code (Lang "sh") is skipped: Analyze already judged it as shell, so
// `bash -c 'cat hook-loop.json'` reads like cat does.
func NamesPath(in Inline, protected []string) (string, bool) {
	if in.Lang == "sh" {
		return "", false
	}
	for _, n := range in.Names {
		if n == "." || n == ".." || n == "/" || n == "./" {
			continue
		}
		abs := n
		// "~/…" has no home here: only the suffix match below applies to it
		// (the joined path below names nothing real).
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(in.Dir, n)
		}
		abs = filepath.Clean(abs)
		rel := filepath.Clean(strings.TrimPrefix(n, "~/"))
		for _, p := range protected {
			folder := strings.HasSuffix(p, "/")
			pc := filepath.Clean(p)
			switch {
			case abs == pc, folder && strings.HasPrefix(abs, pc+"/"):
				return p, true
			case strings.HasPrefix(pc, abs+"/") && abs != filepath.Clean(in.Dir) && abs != "/":
				return p, true // a folder holding it (shutil.rmtree('.hook-loop'))
			case !filepath.IsAbs(rel) && rel != "." && (strings.HasSuffix(pc, "/"+rel)):
				return p, true
			case hasMeta(n):
				if ok, _ := filepath.Match(abs, pc); ok {
					return p, true
				}
				if ok, _ := filepath.Match(filepath.Base(n), filepath.Base(pc)); ok && !strings.Contains(n, "/") {
					return p, true
				}
			}
		}
	}
	return "", false
}

// Hit returns the first write that touches a protected path: the path
// itself, anything under a protected folder (an entry ending in "/"), or a
// tree write or folder move holding it.
func (an Analysis) Hit(protected []string) (Target, string, bool) {
	for _, t := range an.Writes {
		for _, p := range protected {
			pc := filepath.Clean(p)
			switch {
			case t.Path == pc,
				strings.HasSuffix(p, "/") && strings.HasPrefix(t.Path, pc+"/"),
				strings.HasPrefix(pc, t.Path+"/") || t.Path == "/":
				return t, p, true
			}
		}
	}
	return Target{}, "", false
}
