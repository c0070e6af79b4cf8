package shell

import (
	"path/filepath"
	"slices"
	"strings"
)

// find writes what -delete or an -exec'd writing command touches: the
// entries the name filters match under its roots, or the roots as trees when
// there is no filter (or the walk is capped). -fprint files are written too.
func (a *analyzer) find(args []arg, st *state, depth int) {
	i := 0
	for i < len(args) && (args[i].val == "-H" || args[i].val == "-L" || args[i].val == "-P" || strings.HasPrefix(args[i].val, "-O") || args[i].val == "-D") {
		if args[i].val == "-D" {
			i++
		}
		i++
	}
	var roots []arg
	for ; i < len(args); i++ {
		s := args[i].val
		if strings.HasPrefix(s, "-") || s == "(" || s == "!" || s == ")" {
			break
		}
		roots = append(roots, args[i])
	}
	if len(roots) == 0 {
		roots = []arg{{val: ".", raw: "."}}
	}
	writes := false
	var patterns []string
	for ; i < len(args); i++ {
		switch s := args[i].val; s {
		case "-delete":
			writes = true
		case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename":
			if i+1 < len(args) {
				i++
				p := args[i].val
				if strings.HasPrefix(s, "-i") {
					p = strings.ToLower(p)
				}
				patterns = append(patterns, p)
			}
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if i+1 < len(args) {
				i++
				a.write(st, args[i].val, "find "+s, args[i].raw, false)
			}
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(args) && args[j].val != ";" && args[j].val != "+" {
				j++
			}
			if a.execWrites(args[i+1:j], st, depth) {
				writes = true
			}
			i = j
		}
	}
	if !writes {
		return
	}
	for _, r := range roots {
		if len(patterns) == 0 {
			a.write(st, r.val, "find", r.raw, true)
			continue
		}
		a.findMatches(st, r, patterns)
	}
}

// execWrites reports whether the command find runs writes its {} operand;
// its other write operands are recorded as usual.
func (a *analyzer) execWrites(cmd []arg, st *state, depth int) bool {
	if len(cmd) == 0 {
		return false
	}
	before := len(a.out.Writes)
	a.command(cmd, st, "", depth)
	hit := false
	kept := a.out.Writes[:before]
	for _, t := range a.out.Writes[before:] {
		if strings.Contains(t.Word, "{}") {
			hit = true
			delete(a.seen, t)
			continue
		}
		kept = append(kept, t)
	}
	a.out.Writes = kept
	// sh -c '... "$1"' {} and the like: a shell handed the matches.
	if inner := Unwrap(vals(cmd)); len(inner) > 0 && (isShell(inner[0]) || Launch(vals(cmd)).More) {
		for _, c := range cmd {
			if strings.Contains(c.val, "{}") {
				hit = true
			}
		}
	}
	return hit
}

// findMatches walks root (without following links) and records entries whose
// name or path matches a pattern, up to maxFindEntries per command line.
func (a *analyzer) findMatches(st *state, root arg, patterns []string) {
	start := a.abs(st, root.val)
	queue := []string{start}
	for len(queue) > 0 {
		dir := queue[0]
		queue = queue[1:]
		entries, err := a.env.FS.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			a.findEntries++
			if a.findEntries > maxFindEntries {
				a.uncertain("find walk larger than analysed: " + clip(root.raw))
				a.write(st, root.val, "find", root.raw, true)
				return
			}
			p := filepath.Join(dir, e.Name())
			rel := root.val + strings.TrimPrefix(p, start)
			if slices.ContainsFunc(patterns, func(pat string) bool { return findMatch(pat, e.Name(), rel) }) {
				a.write(st, p, "find", root.raw, e.IsDir())
			}
			if e.IsDir() {
				queue = append(queue, p)
			}
		}
	}
}

func findMatch(pat, name, rel string) bool {
	for _, s := range []string{name, strings.ToLower(name), rel, strings.ToLower(rel)} {
		if ok, _ := filepath.Match(pat, s); ok {
			return true
		}
	}
	return false
}

// git reads the subcommands that rewrite the working tree.
func (a *analyzer) git(args []arg, st *state, depth int) {
	gst := *st
	icase := a.envOn(st, "GIT_ICASE_PATHSPECS")
	defer func(c bool) { a.icase = c }(a.icase)
	i := 0
	for ; i < len(args); i++ {
		s := args[i].val
		if !strings.HasPrefix(s, "-") {
			break
		}
		switch s {
		case "-C":
			if i+1 < len(args) {
				i++
				gst.dir = a.abs(st, args[i].val)
			}
		case "-c", "--config-env":
			// A setting may be a command git runs (diff.external, "!" aliases).
			if i+1 < len(args) {
				i++
				a.gitSetting(s, args[i], st, depth)
			}
		case "--git-dir", "--work-tree", "--namespace":
			i++
		case "--icase-pathspecs":
			icase = true
		default:
			if v, ok := strings.CutPrefix(s, "--config-env="); ok {
				a.gitSetting("--config-env", arg{val: v, raw: args[i].raw, unknown: args[i].unknown}, st, depth)
			}
		}
	}
	if i >= len(args) {
		return
	}
	a.icase = icase
	sub, rest := args[i].val, args[i+1:]
	root := a.gitRoot(gst.dir)
	tree := func(op string) { a.write(&gst, root, op, args[i].raw, true) }
	switch sub {
	case "checkout":
		dash := slices.IndexFunc(rest, func(x arg) bool { return x.val == "--" })
		ops, opts := options(rest, "bBc", []string{"conflict", "pathspec-from-file"})
		if has(opts, "f", "force") {
			tree("git checkout -f")
		}
		if dash >= 0 {
			a.gitPaths(&gst, rest[dash+1:], "git checkout")
			return
		}
		for _, o := range ops {
			// Without --, an operand that names a path restores it; one that
			// does not is the branch to switch to.
			if o.val == "." || a.exists(&gst, o.val) || hasMeta(o.val) {
				a.gitPaths(&gst, []arg{o}, "git checkout")
			}
		}
	case "restore":
		ops, opts := options(rest, "sW", []string{"source", "pathspec-from-file"})
		if has(opts, "S", "staged") && !has(opts, "W", "worktree") {
			return
		}
		a.gitPaths(&gst, ops, "git restore")
	case "rm":
		ops, opts := options(rest, "", []string{"pathspec-from-file"})
		if !has(opts, "cached") {
			a.gitPaths(&gst, ops, "git rm")
		}
	case "mv":
		ops, _ := options(rest, "", nil)
		a.gitPaths(&gst, ops, "git mv")
	case "stash":
		// A stash (push) with pathspecs resets only those paths; pop, apply,
		// branch, save and one of every change rewrite the whole tree.
		before, paths := rest, []arg(nil)
		if dash := slices.IndexFunc(rest, func(x arg) bool { return x.val == "--" }); dash >= 0 {
			before, paths = rest[:dash], rest[dash+1:]
		}
		ops, opts := options(before, "m", []string{"message", "pathspec-from-file"})
		op := "git stash"
		if has(opts, "u", "include-untracked", "a", "all") {
			op = "git stash -u" // removes untracked files too
		}
		if len(ops) > 0 {
			switch ops[0].val {
			case "list", "show", "drop", "clear", "create", "store":
				return
			case "push":
				paths = append(slices.Clip(ops[1:]), paths...)
			case "pop", "apply", "branch":
				tree("git stash " + ops[0].val)
				return
			default:
				paths = nil
			}
		}
		if len(paths) == 0 || has(opts, "pathspec-from-file") {
			tree(op)
			return
		}
		a.gitPaths(&gst, paths, op)
	case "clean":
		ops, opts := options(rest, "eS", []string{"exclude"})
		if has(opts, "n", "dry-run") {
			return
		}
		if len(ops) == 0 {
			a.write(&gst, gst.dir, "git clean", args[i].raw, true)
		}
		a.gitPaths(&gst, ops, "git clean")
	case "reset":
		_, opts := options(rest, "", nil)
		if has(opts, "hard", "merge", "keep") {
			tree("git reset --hard")
		}
	case "switch":
		_, opts := options(rest, "cC", nil)
		if has(opts, "f", "force", "discard-changes") {
			tree("git switch -f")
		}
	case "config":
		// A value may be a command git runs later (core.fsmonitor, core.pager,
		// diff.external, "!" aliases): judge it as one now.
		ops, _ := options(rest, "f", []string{"file", "blob", "type", "default", "comment"})
		if len(ops) >= 2 && depth < maxNesting {
			for _, v := range ops[1:] {
				a.script(strings.TrimPrefix(v.val, "!"), st.sub(), depth+1)
			}
		}
	case "read-tree":
		// -u writes the work tree to match the index it reads; without it the
		// index alone is rewritten (--empty drops every file from it), which
		// the next commit, checkout or reset carries to the loop's files.
		_, opts := options(rest, "", []string{"prefix", "index-output", "exclude-per-directory"})
		switch {
		case has(opts, "n", "dry-run"):
		case has(opts, "u"):
			tree("git read-tree -u")
		default:
			tree("git read-tree")
		}
	case "update-index":
		// --cacheinfo MODE,OBJECT,PATH names its path after the second comma:
		// the index entry of that file is replaced, as git rm --cached does.
		for _, o := range rest {
			if f := strings.SplitN(o.val, ",", 3); len(f) == 3 {
				a.name(&gst, f[2], "git", o.raw, false, false)
			}
		}
		if slices.ContainsFunc(rest, func(x arg) bool { return x.val == "--index-info" || x.val == "--stdin" }) {
			a.uncertain("git update-index reads the paths it changes from its input")
		}
	case "checkout-index":
		ops, opts := options(rest, "", []string{"prefix", "stage"})
		if has(opts, "a", "all", "stdin") {
			tree("git checkout-index -a")
		}
		a.gitPaths(&gst, ops, "git checkout-index")
	}
}

// gitSetting judges the value of git -c name=value, or of --config-env
// name=VAR (VAR's value), as a command git may run.
func (a *analyzer) gitSetting(opt string, x arg, st *state, depth int) {
	_, v, ok := strings.Cut(x.val, "=")
	if !ok {
		return
	}
	if opt == "--config-env" {
		if e, ok := a.callEnv[v]; ok {
			a.runValue(e, st, depth)
			return
		}
		val, known := st.vars.get(v)
		if u, _ := st.vars.get(unknownKey + v); u == "1" || !known && a.env.Vars[v] == "" {
			a.uncertain("git reads a setting from the environment: " + clip(x.raw))
		}
		if !known {
			val = a.env.Vars[v]
		}
		a.runValue(arg{val: val, raw: x.raw}, st, depth)
		return
	}
	a.runValue(arg{val: v, raw: x.raw, unknown: x.unknown}, st, depth)
}

// envOn: the variable name is set, to a value not known to be empty, in
// the call's environment, the line's or the harness's.
func (a *analyzer) envOn(st *state, name string) bool {
	if v, ok := a.callEnv[name]; ok {
		return v.unknown || v.val != ""
	}
	if u, _ := st.vars.get(unknownKey + name); u == "1" {
		return true
	}
	v, known := st.vars.get(name)
	if !known {
		v = a.env.Vars[name]
	}
	return v != ""
}

// gitPaths records pathspecs; a pattern (git matches it itself) makes its
// directory a tree, and magic (":!x", ":/x", ":(icase)x") or matching
// without regard to case the whole work tree.
func (a *analyzer) gitPaths(st *state, ops []arg, op string) {
	for _, o := range ops {
		if strings.HasPrefix(o.val, ":") || a.icase {
			a.write(st, a.gitRoot(st.dir), op, o.raw, true)
			continue
		}
		if hasMeta(o.val) {
			dir := filepath.Dir(o.val)
			for hasMeta(dir) && dir != "." && dir != "/" {
				dir = filepath.Dir(dir)
			}
			a.write(st, dir, op, o.raw, true)
			continue
		}
		a.write(st, o.val, op, o.raw, a.isDir(st, o.val))
	}
}

func hasMeta(s string) bool { return strings.ContainsAny(s, "*?[") }

// gitRoot is the nearest directory above dir holding .git, else the
// project root.
func (a *analyzer) gitRoot(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := a.env.FS.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	if a.env.Root != "" {
		return a.env.Root
	}
	return dir
}
