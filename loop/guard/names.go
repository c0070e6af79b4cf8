package guard

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/hook-loop/hook-loop/loop/guard/shell"
)

// namesProtected finds a program that is not a known reader naming one of
// the protected paths (or a path under a protected folder): protected files
// by allowlist of readers, since no list of writers is ever complete.
func namesProtected(named []shell.Name, protected []string, lk *links) (shell.Name, string, bool) {
	for _, n := range named {
		if n.Reader {
			continue
		}
		if f := underAny(n.Path, protected); f != "" {
			return n, f, true
		}
		if n.Unknown {
			// Its folder is not known (cd "$(...)" && gzip settings.json):
			// a protected file's name is taken to be that file.
			base := filepath.Base(n.Path)
			for _, f := range protected {
				if filepath.Base(strings.TrimSuffix(f, string(filepath.Separator))) == base {
					return n, f, true
				}
			}
		}
		if f := lk.of(n.Path); f != "" {
			return n, f, true
		}
		if slices.Contains(linkMakers, n.Prog) && !n.LinkDest {
			// ln -s .claude c; cp x c/settings.json: a link to a folder that
			// holds a protected file reaches it under a name no check knows.
			dir := strings.TrimSuffix(n.Path, string(filepath.Separator)) + string(filepath.Separator)
			for _, f := range protected {
				if strings.HasPrefix(f, dir) {
					return n, f, true
				}
			}
		}
	}
	return shell.Name{}, "", false
}

// unknownSecretName is the first word made as the command runs (or relative
// to a folder known only then) that a reader opening files is handed while
// there are secrets: it may name one. (Non-readers' such words are left
// alone: git commit -m "$(cat <<EOF ...)" is every agent's habit.)
func (p *Policy) unknownSecretName(named []shell.Name) (string, bool) {
	if len(p.SecretPaths) == 0 {
		return "", false
	}
	for _, n := range named {
		if n.Unknown && n.Reader && !slices.Contains(opensNothing, n.Prog) {
			return n.Word, true
		}
	}
	return "", false
}

// opensNothing are readers that never open what they are handed (a cd to
// an unknown folder is judged by the words that follow it).
var opensNothing = []string{"echo", "printf", "true", "false", ":", "basename", "dirname", "cd", "pushd", "popd"}

// rootWalkers are the programs that, handed /, are taken to walk it.
var rootWalkers = []string{"find", "rsync", "tar", "bsdtar", "zip", "7z", "7za", "cpio", "cp", "scp", "rclone", "du", "tree", "fd", "fdfind", "locate", "xargs", "python", "python3", "node", "perl", "ruby", "bash", "sh", "zsh"}

// linkMakers make a second name for what they are given (symbolic or hard
// links, bind mounts, cp -s/-l).
// (Small static slices, unlike package-level maps, cost the hook nothing at
// start-up.)
var linkMakers = []string{"ln", "link", "cp", "mount"}

// secrets are the secret paths as the shell analysis of c reports paths:
// each resolved through its symlinks, folders ending in the separator.
func (p *Policy) secrets(c Call) []string {
	var out []string
	for _, s := range p.SecretPaths {
		folder := strings.HasSuffix(s, string(filepath.Separator))
		for _, r := range c.resolver().Resolve(filepath.Clean(s)) {
			if folder {
				r += string(filepath.Separator)
			}
			out = append(out, r)
		}
	}
	return out
}

// writesSecret finds a write of a secret path: the path itself, one under a
// secret folder, or a tree written over a folder that holds one (cp -r x/keys
// ~/.local/state/hook-loop). A program's words are judged by readsSecret; a
// write is judged here whatever the program is taken to read.
func (p *Policy) writesSecret(c Call, secrets []string) (string, bool) {
	sep := string(filepath.Separator)
	for _, t := range c.Analysis.Writes {
		f := underAny(t.Path, secrets)
		if f == "" {
			// KEYS/ is keys/ where the filesystem ignores case; only a tree
			// write takes along a folder above a secret.
			if g := p.foldedUnder(t.Path, secrets); g != "" && (t.Tree || len(t.Path) >= len(strings.TrimSuffix(g, sep))) {
				f = g
			}
		}
		if f == "" && (t.Tree || t.Path == sep) {
			dir := strings.TrimSuffix(t.Path, sep) + sep
			for _, s := range secrets {
				if strings.HasPrefix(s, dir) {
					f = s
					break
				}
			}
		}
		if f != "" {
			return strings.TrimSuffix(f, sep), true
		}
	}
	return "", false
}

// readsSecret finds a name, by any program, of a secret path: the path
// itself, one under a secret folder, or a folder a recursive reader reads
// that holds one.
func (p *Policy) readsSecret(c Call, secrets []string) (string, bool) {
	if len(secrets) == 0 {
		return "", false
	}
	if f, ok := p.codeNamesSecret(c, secrets); ok {
		return f, true
	}
	for _, n := range c.Analysis.Named {
		f := underAny(n.Path, secrets)
		if f == "" {
			f = p.foldedUnder(n.Path, secrets) // KEYS/ is keys/ where the filesystem ignores case
		}
		if f != "" {
			return strings.TrimSuffix(f, string(filepath.Separator)), true
		}
		if !n.Tree && n.Reader {
			// A program not known to read only what it names may walk a
			// folder (find -exec cat, rsync, zip -r): it reads the tree.
			continue
		}
		if n.LinkDest {
			continue // a link is made there; the folder is not read
		}
		if !n.Tree && n.Path == string(filepath.Separator) && !slices.Contains(rootWalkers, n.Prog) {
			continue // a bare / is mostly a delimiter (tr / _, awk -F/)
		}
		dir := strings.TrimSuffix(n.Path, string(filepath.Separator)) + string(filepath.Separator)
		for _, s := range secrets {
			if strings.HasPrefix(s, dir) {
				return strings.TrimSuffix(s, string(filepath.Separator)), true
			}
		}
	}
	return "", false
}

// codeNamesSecret finds a path in inline code (python -c, node -e, awk)
// that is a secret, lies under one, or is a folder holding one. Only words
// with a "/" count: a bare "keys" in code is no path worth refusing for.
func (p *Policy) codeNamesSecret(c Call, secrets []string) (string, bool) {
	home := filepath.Clean(p.Home)
	for _, in := range c.Analysis.Inline {
		if in.Lang == "sh" {
			continue // judged as shell already
		}
		for _, w := range in.Names {
			if !strings.Contains(w, "/") {
				continue
			}
			// A glob: the folder it starts in.
			w = shell.Abs(shell.GlobPrefix(w), in.Dir, p.Home)
			for _, r := range c.resolver().Resolve(w) {
				if f := underAny(r, secrets); f != "" {
					return strings.TrimSuffix(f, string(filepath.Separator)), true
				}
				if r == string(filepath.Separator) || r == home {
					continue // "/" and "~" are in most code for other reasons
				}
				for _, s := range secrets {
					if strings.HasPrefix(s, r+string(filepath.Separator)) {
						return strings.TrimSuffix(s, string(filepath.Separator)), true
					}
				}
			}
		}
	}
	return "", false
}
