package shell

import (
	"path/filepath"
	"slices"
	"strings"
)

// Name is one word a command hands its program that could be a path. The
// guard refuses a program that names one of hook-loop's files unless the
// program is a known reader: a list of writers can never be complete, a list
// of readers can.
type Name struct {
	Path string // resolved as Target.Path is
	Prog string // the program, launchers peeled off
	Word string // the word as written
	// Reader: Prog only reads what it names, used without any option that
	// writes (sort -o, git diff --output) or runs a program (rg --pre).
	Reader bool
	// Tree: Prog reads everything under Path (grep -r, rg, diff -r).
	Tree bool
	// Unknown: the word held an expansion analysis cannot know, so it may
	// name any path.
	Unknown bool
	// LinkDest: where ln or cp -s/-l (without -r or -a) makes its new names
	// (-t DIR, the last operand), not what they lead to: a folder there is
	// entered, not linked.
	LinkDest bool
}

// maxNameLen: no longer word is a path any system opens (PATH_MAX).
const maxNameLen = 4096

// names records every word of a simple command (after its launchers) that
// could name a path, with whether its program only reads.
func (a *analyzer) names(args []arg, st *state) {
	if len(args) < 2 {
		return
	}
	prog := baseName(args[0].val)
	reader, tree := readerUse(prog, args[1:])
	reader = reader && !a.runsEnv
	dest := -1
	if prog == "ln" || prog == "cp" && cpLinks(args[1:]) {
		dest = linkDest(args[1:])
	}
	for i, x := range args[1:] {
		for _, v := range nameForms(x.val) {
			n := len(a.out.Named)
			a.name(st, v, prog, x.raw, reader, tree)
			for j := n; j < len(a.out.Named); j++ {
				a.out.Named[j].Unknown = a.out.Named[j].Unknown || x.unknown
				a.out.Named[j].LinkDest = i == dest
			}
		}
	}
	if prog == "ln" {
		a.linkTargets(args[1:], st, reader)
	}
	if tree && prog == "rg" && !slices.ContainsFunc(args[1:], func(x arg) bool { return !strings.HasPrefix(x.val, "-") }) {
		a.name(st, ".", prog, ".", reader, tree) // rg with only a pattern searches its directory
	}
}

// linkTargets: a relative symbolic link target is read from the link's
// folder, not the working directory (mkdir x && ln -s ../hook-loop.json x/y):
// ln names that path too, from both folders the link may be made in when
// the last operand is not yet a folder (mkdir x && ln -s ../f x).
func (a *analyzer) linkTargets(args []arg, st *state, reader bool) {
	if !slices.ContainsFunc(args, func(x arg) bool {
		name, ok := strings.CutPrefix(x.val, "--")
		return ok && len(name) >= 2 && strings.HasPrefix("symbolic", name) || isShortIn(x.val, 's')
	}) {
		return
	}
	for _, f := range linkForms(args) {
		if f.dest < 0 {
			continue // made in the working directory: the target is as named
		}
		d := f.dir
		// The folders as the kernel finds them: a target's ".." climbs from
		// where a symlinked folder leads, not from the link's spelling.
		full, parents := a.resolve(a.abs(st, d))
		bases := []string{full}
		if !f.into && !strings.HasSuffix(d, "/") && !a.isDir(st, d) {
			bases = append(bases, filepath.Dir(parents))
		}
		for _, i := range f.srcs {
			t := args[i]
			if strings.HasPrefix(t.val, "/") {
				continue
			}
			for _, b := range bases {
				a.name(st, b+"/"+t.val, "ln", t.raw, reader, false)
			}
		}
	}
}

// linkForm is one reading of ln's or cp's arguments: the indexes of its
// sources and of its destination (-1 for none).
type linkForm struct {
	srcs []int
	dest int
	dir  string // the destination (without an option's name)
	into bool   // dest is a -t folder every link is made in
	// enters: no -T or -n, so a destination that is a link to a folder is
	// entered, not replaced.
	enters bool
}

// linkForms reads ln's or cp's arguments as GNU getopt does, and also as
// under POSIXLY_CORRECT (options end at the first operand) when an option
// follows an operand, since the two then disagree on which word is which.
func linkForms(args []arg) []linkForm {
	gnu, late := parseLink(args, false)
	if !late {
		return []linkForm{gnu}
	}
	posix, _ := parseLink(args, true)
	return []linkForm{gnu, posix}
}

func parseLink(args []arg, posix bool) (f linkForm, late bool) {
	f.dest, f.enters = -1, true
	var ops []int
	for i := 0; i < len(args); i++ {
		s := args[i].val
		switch {
		case s == "--" && !(posix && len(ops) > 0):
			for j := i + 1; j < len(args); j++ {
				ops = append(ops, j)
			}
			i = len(args)
		case len(s) < 2 || s[0] != '-' || posix && len(ops) > 0:
			ops = append(ops, i)
		case strings.HasPrefix(s, "--"):
			late = late || len(ops) > 0
			name, v, hasV := strings.Cut(s[2:], "=")
			switch {
			case strings.HasPrefix(name, "n"): // --no-target-directory, --no-dereference
				f.enters = false
			case strings.HasPrefix("target-directory", name):
				if !hasV && i+1 < len(args) {
					i++
					v = args[i].val
				}
				f.dest, f.dir, f.into = i, v, true
			case strings.HasPrefix("suffix", name) && !hasV:
				i++
			}
		default:
			late = late || len(ops) > 0
		cluster:
			for j := 1; j < len(s); j++ {
				switch s[j] {
				case 'T', 'n', 'h', 'F':
					f.enters = false
				case 't', 'S':
					v := s[j+1:]
					if v == "" && i+1 < len(args) {
						i++
						v = args[i].val
					}
					if s[j] == 't' {
						f.dest, f.dir, f.into = i, v, true
					}
					break cluster
				}
			}
		}
	}
	switch {
	case f.into:
		f.srcs = ops
	case len(ops) >= 2:
		f.dest, f.srcs = ops[len(ops)-1], ops[:len(ops)-1]
		f.dir = args[f.dest].val
	default:
		f.srcs = ops
	}
	return f, late
}

// linkDest is the index of the word every reading of ln's or cp's
// arguments takes for the folder or name new links are made at, or -1: none
// when a reading replaces a link there (-T, -n), or when the word may have
// expanded to several fields (a brace, a glob, a split variable) that could
// hide sources.
func linkDest(args []arg) int {
	d := -1
	for _, f := range linkForms(args) {
		if f.dest < 0 || !f.enters || d >= 0 && f.dest != d {
			return -1
		}
		d = f.dest
	}
	if d < 0 || args[d].unknown || d > 0 && args[d-1].raw == args[d].raw || d+1 < len(args) && args[d+1].raw == args[d].raw {
		return -1
	}
	return d
}

// nameForms are the paths a word may stand for: itself, an option's
// attached value (--output=F, -oF).
func nameForms(w string) []string {
	if w == "" || w == "-" || len(w) > maxNameLen {
		return nil
	}
	if !strings.HasPrefix(w, "-") {
		return []string{w}
	}
	if _, v, ok := strings.Cut(w, "="); ok {
		return []string{v}
	}
	if !strings.HasPrefix(w, "--") && len(w) > 2 {
		return []string{w[2:]}
	}
	return nil
}

func (a *analyzer) name(st *state, p, prog, raw string, reader, tree bool) {
	if strings.HasPrefix(p, "~/") || p == "~" {
		p = a.env.Home + p[1:]
	}
	if !strings.HasPrefix(p, "/") {
		if st.lostDir {
			// After a cd to a folder known only as it runs, a relative word
			// may name any file there: the guard compares its base name.
			if !reader {
				a.uncertain("after a cd to a folder known only as it runs, " + prog + " is handed " + clip(raw))
			}
			a.out.Named = append(a.out.Named, Name{Path: p, Prog: prog, Word: raw, Reader: reader, Tree: tree, Unknown: true})
			return
		}
		p = st.dir + "/" + p
	}
	if strings.HasPrefix(p, "/dev/") || strings.HasPrefix(p, "/proc/self/fd/") || a.tooManyPaths() {
		return
	}
	r, ok := a.resolved[p]
	if !ok {
		r[0], r[1] = a.resolve(p)
		a.resolved[p] = r
	}
	for i, path := range r {
		if i == 1 && path == r[0] {
			break
		}
		a.out.Named = append(a.out.Named, Name{Path: path, Prog: prog, Word: raw, Reader: reader, Tree: tree})
	}
	if hasMeta(p) {
		// A glob left as it is (a reader's, or one that matched nothing)
		// stands for everything under its fixed prefix (cat ~/.state/k*/*).
		prefix := GlobPrefix(p)
		a.out.Named = append(a.out.Named, Name{Path: a.resolveAll(prefix), Prog: prog, Word: raw, Reader: reader, Tree: true})
	}
}

// plainReader: programs that read what they name and have no option that
// writes a file or runs a program. (A switch, unlike a package-level map,
// costs the hook nothing at start-up.)
func plainReader(prog string) bool {
	switch prog {
	case "cat", "less", "more", "head", "tail", "wc", "cmp",
		"ls", "stat", "file", "du", "md5sum", "sha1sum", "sha256sum",
		"sha512sum", "b2sum", "cksum", "od", "hexdump", "nl", "cut",
		"basename", "dirname", "realpath", "readlink", "test", "[",
		"echo", "printf", "jq", "cd", "pushd", "popd",
		"hook-loop", "hook-loop-hook", "true", "false", ":",
		"grep", "egrep", "fgrep", "zcat", "column", "strings", "tac":
		return true
	}
	return false
}

// gitReader: git's subcommands that only read the files they name (add
// and commit copy them into the repository, not the work tree).
func gitReader(sub string) bool {
	switch sub {
	case "status", "diff", "log", "show", "blame", "ls-files",
		"grep", "rev-parse", "check-ignore", "annotate", "shortlog", "add", "commit":
		return true
	}
	return false
}

// readerUse says whether prog, given args, only reads what it names, and
// whether it reads folders whole.
func readerUse(prog string, args []arg) (reader, tree bool) {
	has := func(opts ...string) bool { return hasOption(args, opts...) }
	// operands counts the words that are not options or their values
	// (uniq -f 1 IN, xxd -c 16 IN).
	operands := func(withArg string, longArg ...string) int {
		ops, _ := options(args, withArg, longArg)
		return len(ops)
	}
	switch prog {
	case "grep", "egrep", "fgrep":
		recurse := slices.ContainsFunc(args, func(x arg) bool { return x.val == "recurse" || strings.HasSuffix(x.val, "=recurse") })
		return true, recurse || has("-r", "-R", "--recursive", "--dereference-recursive")
	case "diff":
		return true, has("-r", "--recursive")
	case "rg":
		return !has("--pre"), true
	case "cp":
		// A copy reads its sources (a folder whole with -r); its destination
		// is judged as a write.
		return !has("-l", "-s", "--link", "--symbolic-link", "--remove-destination"),
			has("-r", "-R", "-a", "--recursive", "--archive")
	case "sed":
		return readSed(args).reads(), false
	case "awk", "gawk", "mawk", "nawk":
		return awkReads(args), false
	case "sort":
		return !has("-o", "--output", "--compress-program"), false
	case "tree":
		return !has("-o", "-R"), false
	case "bat":
		return !has("--pager", "--paging"), false
	case "uniq":
		return operands("fsw", "skip-fields", "skip-chars", "check-chars") <= 1, false // uniq IN OUT writes OUT
	case "xxd":
		return operands("cglnos", "cols", "groupsize", "len", "name", "seek") <= 1 && !has("-r", "-revert"), false
	case "find":
		return !has("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"), false
	case "git":
		sub := ""
		for i := 0; i < len(args); i++ {
			v := args[i].val
			if v == "-C" || v == "-c" || v == "--git-dir" || v == "--work-tree" {
				i++
				continue
			}
			if !strings.HasPrefix(v, "-") {
				sub = v
				break
			}
		}
		// -c, --config-env and a pager option can make any subcommand run a
		// program (core.fsmonitor, diff.external).
		return gitReader(sub) && !has("--output", "--ext-diff", "--textconv", "-c", "--config-env", "-O", "--open-files-in-pager", "--paginate"), false
	}
	return plainReader(prog), false
}

// hasOption: one of args is one of the options opts (-r, --recursive),
// in a cluster (-rf), with a value (--target=x) or abbreviated (--recur).
func hasOption(args []arg, opts ...string) bool {
	return slices.ContainsFunc(args, func(x arg) bool {
		for _, o := range opts {
			if x.val == o || strings.HasPrefix(x.val, o+"=") || (len(o) == 2 && o[0] == '-' && isShortIn(x.val, o[1])) ||
				longPrefix(x.val, o) {
				return true
			}
		}
		return false
	})
}

// cpLinks: cp makes links (-s, -l) of files only. With -r or -a it also
// makes the folders of the tree it copies into the destination, which is
// then a write like any copy's, not a folder a link is made in.
func cpLinks(args []arg) bool {
	return hasOption(args, "-l", "-s", "--link", "--symbolic-link") && !hasOption(args, "-r", "-R", "-a", "--recursive", "--archive")
}

// longPrefix: w (--outp, --outp=F) is an abbreviation GNU getopt accepts for
// the long option o (--output).
func longPrefix(w, o string) bool {
	if !strings.HasPrefix(w, "--") || !strings.HasPrefix(o, "--") {
		return false
	}
	name, _, _ := strings.Cut(w, "=")
	return len(name) >= 4 && strings.HasPrefix(o, name)
}

// isShortIn: w is a cluster of short options (-rn) holding c.
func isShortIn(w string, c byte) bool {
	return len(w) > 1 && w[0] == '-' && w[1] != '-' && strings.IndexByte(w[1:], c) >= 0 && !strings.Contains(w, "=")
}

// awkReads: awk with only -F and -v, and a program that cannot write a file
// or run one: without > (print > f), | (print | cmd, cmd | getline),
// system() and gawk's @ (@load, indirect calls). A > is a comparison only in
// a program of patterns alone (NR>1): print and printf, which redirect, live
// in actions, between braces. In an action a comparison with > is refused
// too: telling it from a redirection is not worth the parser.
func awkReads(args []arg) bool {
	ops, opts := options(args, "Fv", []string{"field-separator", "assign"})
	for o := range opts {
		if o != "F" && o != "v" && o != "field-separator" && o != "assign" {
			return false
		}
	}
	if len(ops) == 0 || ops[0].unknown {
		return false
	}
	prog := ops[0].val
	if strings.ContainsAny(prog, "|@") || strings.Contains(prog, "system") {
		return false
	}
	return !strings.Contains(prog, ">") || !strings.ContainsAny(prog, "{}")
}
