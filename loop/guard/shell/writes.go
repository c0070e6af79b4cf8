package shell

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// command judges one simple command after expansion: the builtins that move
// the working directory, and the write operands of file tools.
func (a *analyzer) command(all []arg, st *state, heredoc string, depth int) {
	if len(all) == 0 {
		return
	}
	l := Launch(vals(all))
	args := all[l.Start:]
	defer func(r bool, c map[string]arg) { a.runsEnv, a.callEnv = r, c }(a.runsEnv, a.callEnv)
	if l.HasScript {
		// su -c, watch, env -S: the program is a shell command line.
		unknown := slices.ContainsFunc(all, func(x arg) bool { return x.unknown })
		args = []arg{{val: "sh", raw: "sh"}, {val: "-c", raw: "-c"}, {val: l.Script, raw: l.Script, unknown: unknown}}
		if l.More {
			// parallel: the words it reads from its input reach every program
			// of the line.
			for _, c := range Parse(l.Script) {
				if in := Unwrap(c.Args); len(in) > 0 && writer(baseName(in[0])) {
					a.uncertain(strings.Join(l.Via, " ") + " passes " + baseName(in[0]) + " operands from its input")
				}
			}
		}
	}
	// env NAME=VALUE: the value may be a command the program runs.
	for _, x := range all[:min(l.Start, len(all))] {
		if n, v, ok := strings.Cut(x.val, "="); ok && syntax.ValidName(n) {
			a.envValue(n, arg{val: v, raw: x.raw, unknown: x.unknown}, st, depth)
			if runsPrograms(n) {
				a.runsEnv = true
			}
			a.callEnv = maps.Clone(a.callEnv)
			if a.callEnv == nil {
				a.callEnv = map[string]arg{}
			}
			a.callEnv[n] = arg{val: v, raw: x.raw, unknown: x.unknown}
		}
	}
	viaXargs := l.More
	if len(args) == 0 {
		return
	}
	if len(l.Dirs) > 0 {
		// env -C dir: the program starts there; the caller's directory stays.
		st = st.sub()
		for _, d := range l.Dirs {
			a.chdir("cd", []arg{{val: d, raw: d, unknown: a.unknownVals[d]}}, st)
		}
	}
	if args[0].unknown {
		a.uncertain("command name not known: " + clip(args[0].raw))
	}
	name := baseName(args[0].val)
	a.names(args, st)
	ops, opts := options(args[1:], "", nil)
	if viaXargs && writer(name) {
		a.uncertain("xargs passes " + name + " operands from standard input")
	}
	w := func(x arg, op string) { a.write(st, x.val, op, x.raw, false) }
	switch name {
	case "cd", "pushd", "popd":
		a.chdir(name, ops, st)
	case "eval":
		if slices.ContainsFunc(args[1:], func(x arg) bool { return x.unknown }) {
			a.uncertain("eval runs text made as the command runs: " + clip(args[1].raw))
		}
		if depth < maxNesting {
			a.script(strings.Join(vals(args[1:]), " "), st, depth+1)
		}
	case "trap", "alias":
		// Their text runs later (on a signal, or in place of a word): judge
		// it now, as if it ran.
		for _, o := range ops {
			code := o.val
			if name == "alias" {
				_, code, _ = strings.Cut(code, "=")
			}
			if o.unknown {
				a.uncertain(name + " of text made as the command runs: " + clip(o.raw))
			}
			if depth < maxNesting && code != "" {
				a.script(code, st.sub(), depth+1)
			}
			if name == "trap" {
				break // the rest are signal names
			}
		}
	case "source", ".":
		if len(ops) > 0 && (ops[0].unknown || strings.HasPrefix(ops[0].val, "/dev/fd/")) {
			a.uncertain(name + " runs text made as the command runs: " + clip(ops[0].raw))
		}
	case "rm", "rmdir", "unlink", "shred", "tee", "mkdir", "mkfifo":
		ops, _ = options(args[1:], "m", []string{"mode"})
		for _, o := range ops {
			w(o, name)
		}
	case "touch", "truncate":
		ops, _ = options(args[1:], "dtrs", []string{"date", "reference", "size"})
		for _, o := range ops {
			w(o, name)
		}
	case "chmod", "chown", "chgrp":
		if _, ref := opts["reference"]; !ref && len(ops) >= 2 {
			ops = ops[1:] // the mode or owner
		}
		for _, o := range ops {
			w(o, name)
		}
	case "mv":
		// Moving a file away writes it as much as its destination does.
		args = append(args[:1:1], longNames(args[1:])...)
		ops, opts = options(args[1:], "tS", []string{"target-directory", "suffix"})
		if len(optArgs(opts, "t", "target-directory")) == 0 && len(ops) >= 2 {
			for _, o := range ops[:len(ops)-1] {
				w(o, name)
			}
		}
		a.copyLike(name, args[1:], st)
	case "cp", "install", "ln":
		a.copyLike(name, longNames(args[1:]), st)
	case "dd":
		for _, o := range args[1:] {
			if v, ok := strings.CutPrefix(o.val, "of="); ok {
				a.write(st, v, "dd of=", o.raw, false)
			}
		}
	case "sed":
		a.sed(args[1:], st, depth)
	case "perl", "ruby":
		a.perlRuby(name, args[1:], st, heredoc)
	case "awk", "gawk", "mawk", "nawk", "busybox":
		a.awk(name, args[1:], st)
	case "find":
		a.find(args[1:], st, depth)
	case "git":
		a.git(args[1:], st, depth)
	case "rsync":
		a.rsync(args[1:], st)
	case "node", "nodejs", "bun", "deno":
		a.node(args[1:], st, heredoc)
	case "curl", "wget":
		_, opts = options(args[1:], "oOdHXuAeErTbcKw", []string{"output", "output-document", "data", "header", "request", "user", "referer", "upload-file", "cookie", "config", "write-out"})
		for _, o := range optArgs(opts, "o", "output", "output-document") {
			w(o, name)
		}
		if name == "wget" {
			for _, o := range opts["O"] {
				w(o, name)
			}
		}
	case "tar", "unzip", "patch", "cpio", "bsdtar":
		if name == "unzip" && unzipOnlyReads(args[1:]) {
			break
		}
		if name != "tar" && name != "bsdtar" || tarExtracts(args[1:]) {
			a.uncertain(name + " writes the paths its input names")
		}
	case "php":
		a.flagCode("php", args[1:], st, heredoc, "r")
	default:
		switch {
		case isShell(name):
			a.shellCode(args[1:], st, heredoc, depth)
		case isPython(name):
			a.python(args[1:], st, heredoc)
		}
	}
}

// unzipOnlyReads: -l, -t, -v, -Z list or test, -p prints to standard output.
// Only clusters before the archive count: after it, unzip evil.zip -x -l
// leaves out a member named -l and extracts the rest.
func unzipOnlyReads(args []arg) bool {
	for i := 0; i < len(args); i++ {
		s := args[i].val
		switch {
		case s == "-d":
			i++ // its folder
		case len(s) < 2 || s[0] != '-' || s == "--":
			return false
		case strings.ContainsAny(s[1:2], "ltvZp"):
			return true
		}
	}
	return false
}

// tarExtracts: -x, --extract, --get, or x in the old-style first cluster.
func tarExtracts(args []arg) bool {
	for i, x := range args {
		s := x.val
		if s == "--extract" || s == "--get" || (i == 0 && !strings.HasPrefix(s, "-") && strings.Contains(s, "x")) ||
			(len(s) > 1 && s[0] == '-' && s[1] != '-' && strings.Contains(s, "x")) {
			return true
		}
	}
	return false
}

// writer: the commands whose operands are written.
func writer(name string) bool {
	switch name {
	case "rm", "rmdir", "unlink", "shred", "tee", "mkdir",
		"touch", "truncate", "chmod", "chown", "chgrp",
		"mv", "cp", "install", "ln", "dd", "sed",
		"perl", "ruby", "rsync", "git", "find":
		return true
	}
	return false
}

func isPython(name string) bool {
	return name == "python" || name == "pypy" || name == "pypy3" || strings.HasPrefix(name, "python3") || strings.HasPrefix(name, "python2")
}

// options splits GNU-style arguments into operands and options. Short
// options in withArg and long options in longArg take a value (attached or
// the next word); everything after "--" is an operand.
func options(args []arg, withArg string, longArg []string) ([]arg, map[string][]arg) {
	var ops []arg
	opts := map[string][]arg{}
	for i := 0; i < len(args); i++ {
		x := args[i]
		s := x.val
		switch {
		case s == "--":
			return append(ops, args[i+1:]...), opts
		case strings.HasPrefix(s, "--"):
			name, v, hasV := strings.Cut(s[2:], "=")
			if !hasV && slices.Contains(longArg, name) && i+1 < len(args) {
				i++
				opts[name] = append(opts[name], args[i])
				continue
			}
			opts[name] = append(opts[name], arg{val: v, raw: x.raw, unknown: x.unknown})
		case len(s) > 1 && s[0] == '-':
			for j := 1; j < len(s); j++ {
				c := string(s[j])
				if strings.Contains(withArg, c) {
					if j+1 < len(s) {
						opts[c] = append(opts[c], arg{val: s[j+1:], raw: x.raw, unknown: x.unknown})
					} else if i+1 < len(args) {
						i++
						opts[c] = append(opts[c], args[i])
					}
					break
				}
				opts[c] = append(opts[c], arg{})
			}
		default:
			ops = append(ops, x)
		}
	}
	return ops, opts
}

func optArgs(opts map[string][]arg, names ...string) []arg {
	var out []arg
	for _, n := range names {
		out = append(out, opts[n]...)
	}
	return out
}

func has(opts map[string][]arg, names ...string) bool {
	for _, n := range names {
		if _, ok := opts[n]; ok {
			return true
		}
	}
	return false
}

func (a *analyzer) chdir(name string, ops []arg, st *state) {
	to := ""
	switch {
	case name == "popd":
		if len(st.stack) == 0 {
			return
		}
		to = st.stack[len(st.stack)-1]
		st.stack = st.stack[: len(st.stack)-1 : len(st.stack)-1]
	case len(ops) == 0 && name == "pushd":
		if len(st.stack) == 0 {
			return
		}
		to = st.stack[len(st.stack)-1]
		st.stack = append(st.stack[:len(st.stack)-1:len(st.stack)-1], st.dir)
	case len(ops) == 0:
		to = a.env.Home
	case ops[0].val == "-":
		to = st.oldpwd
	case ops[0].unknown:
		st.lostDir = true
		to = ops[0].val
	default:
		to = ops[0].val
	}
	if to == "" {
		return
	}
	if name == "pushd" && len(ops) > 0 {
		st.stack = append(slices.Clip(st.stack), st.dir)
	}
	st.oldpwd = st.dir
	st.dir = a.abs(st, to)
}

// copyLike: cp, install and ln write their destination (a directory
// destination receives each source by its base name).
func (a *analyzer) copyLike(name string, args []arg, st *state) {
	withArg, long := "tS", []string{"target-directory", "suffix"}
	if name == "install" {
		withArg, long = "tSmgo", append(long, "mode", "group", "owner")
	}
	ops, opts := options(args, withArg, long)
	if name == "install" && has(opts, "d", "directory") {
		for _, o := range ops {
			a.write(st, o.val, name, o.raw, false)
		}
		return
	}
	// A backup (-b, --backup) renames what a destination held to its name
	// plus a suffix (cp -b -S .json x hook-loop): that name is written too.
	suffix, backup := "", has(opts, "b", "backup")
	if backup {
		suffix = a.backupSuffix(opts, st)
	}
	put := func(p, raw string, tree bool) {
		a.write(st, p, name, raw, tree)
		if backup && p != "" {
			a.write(st, strings.TrimRight(p, "/")+suffix, name+" --backup", raw, false)
		}
	}
	dests := optArgs(opts, "t", "target-directory")
	srcs := ops
	if len(dests) == 0 {
		if len(ops) == 0 {
			return
		}
		if name == "ln" && len(ops) == 1 {
			put(filepath.Base(ops[0].val), ops[0].raw, false)
			return
		}
		dests, srcs = ops[len(ops)-1:], ops[:len(ops)-1]
	}
	recursive := has(opts, "r", "R", "a", "recursive", "archive")
	// -T: a folder destination is written over, not entered (cp -rT x .claude).
	over := has(opts, "T", "no-target-directory")
	for _, d := range dests {
		if (over || !a.isDir(st, d.val)) && len(optArgs(opts, "t", "target-directory")) == 0 {
			put(d.val, d.raw, recursive)
			continue
		}
		// Into a directory: each source lands under its base name; the
		// directory itself is not replaced.
		if name == "mv" {
			for _, s := range srcs {
				a.write(st, s.val, name, s.raw, false)
			}
		}
		for _, s := range srcs {
			put(filepath.Join(d.val, filepath.Base(s.val)), d.raw, recursive)
		}
	}
}

// backupSuffix is what a backup's name ends in: -S or --suffix, else
// SIMPLE_BACKUP_SUFFIX, else "~". (A numbered backup's .~N~ names no loop
// file; the simple name is judged whatever the version control says.)
func (a *analyzer) backupSuffix(opts map[string][]arg, st *state) string {
	if s := optArgs(opts, "S", "suffix"); len(s) > 0 {
		x := s[len(s)-1]
		if x.unknown {
			a.uncertain("backup suffix not known: " + clip(x.raw))
		}
		return x.val
	}
	const env = "SIMPLE_BACKUP_SUFFIX"
	if v, ok := a.callEnv[env]; ok {
		if v.unknown {
			a.uncertain("backup suffix not known: " + clip(v.raw))
		}
		if v.val != "" {
			return v.val
		}
		return "~"
	}
	if u, _ := st.vars.get(unknownKey + env); u == "1" {
		a.uncertain("backup suffix not known: $" + env)
	}
	v, known := st.vars.get(env)
	if !known {
		v = a.env.Vars[env]
	}
	if v == "" {
		return "~"
	}
	return v
}

// longNames spells out the abbreviations GNU getopt takes for the long
// options of cp, mv, ln and install that change which word is written
// (--target=DIR, --t DIR, --suf X, --no-t, --back), which options knows only
// in full.
func longNames(args []arg) []arg {
	out := slices.Clone(args)
	for i, x := range out {
		if x.val == "--" {
			break
		}
		name, v, hasV := strings.Cut(strings.TrimPrefix(x.val, "--"), "=")
		if !strings.HasPrefix(x.val, "--") || name == "" {
			continue
		}
		for _, full := range []string{"target-directory", "suffix", "no-target-directory", "backup"} {
			// The shortest spellings that name only this option.
			unique := map[byte]int{'t': 1, 's': 2, 'n': 4, 'b': 1}[full[0]]
			if name != full && strings.HasPrefix(full, name) && len(name) >= unique {
				out[i].val = "--" + full
				if hasV {
					out[i].val += "=" + v
				}
			}
		}
	}
	return out
}

func (a *analyzer) isDir(st *state, p string) bool {
	full, _ := a.resolve(a.abs(st, p))
	fi, err := a.env.FS.Lstat(full)
	return err == nil && fi.IsDir()
}

func (a *analyzer) exists(st *state, p string) bool {
	_, err := a.env.FS.Lstat(a.abs(st, p))
	return err == nil
}

// perlRuby reads perl's and ruby's -e code and -i in-place files.
func (a *analyzer) perlRuby(name string, args []arg, st *state, heredoc string) {
	inPlace := false
	var code []string
	var ops []arg
	// Options whose value follows, attached or as the next word.
	valued := "IMmCdDxrEFW0l"
	if name == "perl" {
		valued = "IMmCdDx0l"
	}
	i := 0
	for ; i < len(args); i++ {
		s := args[i].val
		if s == "--" {
			i++
			break
		}
		if len(s) < 2 || s[0] != '-' || strings.HasPrefix(s, "--") {
			if strings.HasPrefix(s, "--") {
				continue
			}
			break
		}
	cluster:
		for j := 1; j < len(s); j++ {
			c := s[j]
			switch {
			case c == 'e' || c == 'E' && name == "perl":
				if j+1 < len(s) {
					code = append(code, s[j+1:])
				} else if i+1 < len(args) {
					i++
					code = append(code, args[i].val)
				}
				break cluster
			case c == 'i':
				inPlace = true
				break cluster
			case strings.IndexByte(valued, c) >= 0:
				// Digits-only (-0777, -l) and path values are attached; -I and
				// -r also take the next word.
				if j+1 == len(s) && (c == 'I' || c == 'r' || c == 'C' || c == 'E' || c == 'F') && i+1 < len(args) {
					i++
				}
				break cluster
			}
		}
	}
	ops = args[i:]
	for _, c := range code {
		a.inline(name, c, st)
	}
	if len(code) == 0 {
		if len(ops) == 0 {
			a.stdinCode(name, st, heredoc, args)
			return
		}
		ops = ops[1:] // the script file
	}
	if inPlace {
		for _, o := range ops {
			a.write(st, o.val, name+" -i", o.raw, false)
		}
	}
}

// awk writes its files with -i inplace (gawk); its program is inline code.
func (a *analyzer) awk(name string, args []arg, st *state) {
	if name == "busybox" {
		if len(args) == 0 || args[0].val != "awk" {
			return
		}
		args = args[1:]
	}
	ops, opts := options(args, "fvFiE", []string{"file", "assign", "field-separator", "include", "exec"})
	inPlace := false
	for _, v := range optArgs(opts, "i", "include") {
		if strings.TrimSuffix(v.val, ".awk") == "inplace" {
			inPlace = true
		}
	}
	if !has(opts, "f", "file", "E", "exec") {
		if len(ops) == 0 {
			return
		}
		a.inline("awk", ops[0].val, st)
		ops = ops[1:]
	}
	if !inPlace {
		return
	}
	for _, o := range ops {
		if strings.Contains(o.val, "=") {
			continue // var=value between files
		}
		a.write(st, o.val, "awk -i inplace", o.raw, false)
	}
}

func (a *analyzer) python(args []arg, st *state, heredoc string) {
	for i := 0; i < len(args); i++ {
		s := args[i].val
		if s == "-" || len(s) < 2 || s[0] != '-' {
			if s == "-" {
				a.stdinCode("python", st, heredoc, args)
			}
			return // a script file
		}
		if strings.HasPrefix(s, "--") {
			continue
		}
		for j := 1; j < len(s); j++ {
			switch s[j] {
			case 'c':
				code := s[j+1:]
				if code == "" && i+1 < len(args) {
					code = args[i+1].val
				}
				a.inline("python", code, st)
				return
			case 'm':
				return
			case 'W', 'X', 'Q':
				if j+1 == len(s) {
					i++
				}
				j = len(s)
			}
		}
	}
	a.stdinCode("python", st, heredoc, args)
}

func (a *analyzer) node(args []arg, st *state, heredoc string) {
	for i := 0; i < len(args); i++ {
		s := args[i].val
		switch {
		case s == "-e" || s == "-p" || s == "--eval" || s == "--print" || s == "-pe" || s == "eval":
			if i+1 < len(args) {
				a.inline("node", args[i+1].val, st)
			}
			return
		case strings.HasPrefix(s, "--eval=") || strings.HasPrefix(s, "--print="):
			_, v, _ := strings.Cut(s, "=")
			a.inline("node", v, st)
			return
		case s == "-r" || s == "--require" || s == "--import":
			i++
		case s == "-" || !strings.HasPrefix(s, "-"):
			if s == "-" {
				a.stdinCode("node", st, heredoc, args)
			}
			return
		}
	}
	a.stdinCode("node", st, heredoc, args)
}

// flagCode reads code given after one of flags (php -r).
func (a *analyzer) flagCode(lang string, args []arg, st *state, heredoc string, flag string) {
	for i := 0; i < len(args); i++ {
		if args[i].val == "-"+flag && i+1 < len(args) {
			a.inline(lang, args[i+1].val, st)
			return
		}
		if !strings.HasPrefix(args[i].val, "-") {
			return
		}
	}
	a.stdinCode(lang, st, heredoc, args)
}

// shellCode analyses sh -c strings and heredocs fed to a shell as shell.
func (a *analyzer) shellCode(args []arg, st *state, heredoc string, depth int) {
	for i := 0; i < len(args); i++ {
		s := args[i].val
		if isCommandFlag(s) && i+1 < len(args) {
			code := args[i+1].val
			if args[i+1].unknown {
				a.uncertain("sh -c runs text made as the command runs: " + clip(args[i+1].raw))
			}
			a.out.Inline = append(a.out.Inline, a.inlineOf("sh", code, st))
			if depth < maxNesting {
				a.script(code, st.sub(), depth+1)
			} else {
				a.uncertain("sh -c nested deeper than analysed")
			}
			return
		}
		if !strings.HasPrefix(s, "-") || s == "-" || s == "-s" {
			if s != "-" && s != "-s" {
				return // a script file
			}
			break
		}
	}
	if heredoc != "" {
		a.out.Inline = append(a.out.Inline, a.inlineOf("sh", heredoc, st))
		if depth < maxNesting {
			a.script(heredoc, st.sub(), depth+1)
		}
		return
	}
	if stdinArgs(args) {
		a.uncertain("shell reads its commands from standard input")
	}
}

// stdinCode: an interpreter with no code argument reads its program from
// standard input, a heredoc when there is one.
func (a *analyzer) stdinCode(lang string, st *state, heredoc string, args []arg) {
	if heredoc != "" {
		a.inline(lang, heredoc, st)
		return
	}
	if stdinArgs(args) {
		a.uncertain(lang + " reads its code from standard input")
	}
}

// stdinArgs: an interpreter run bare, or with "-", reads code from standard
// input; one run with only options (--version, -V) does not run code.
func stdinArgs(args []arg) bool {
	return len(args) == 0 || slices.ContainsFunc(args, func(x arg) bool { return x.val == "-" || x.val == "-s" })
}

func (a *analyzer) inline(lang, code string, st *state) {
	a.out.Inline = append(a.out.Inline, a.inlineOf(lang, code, st))
}

func (a *analyzer) inlineOf(lang, code string, st *state) Inline {
	return Inline{Lang: lang, Code: code, Dir: st.dir, Names: names(code)}
}

// rsync writes its destination (the last operand when it is local), and its
// sources with --remove-source-files.
func (a *analyzer) rsync(args []arg, st *state) {
	ops, opts := options(args, "eBTf", []string{"rsh", "block-size", "temp-dir", "filter", "exclude", "include", "files-from", "partial-dir"})
	if len(ops) < 2 {
		return
	}
	dest := ops[len(ops)-1]
	if !remote(dest.val) {
		a.write(st, dest.val, "rsync", dest.raw, true)
	}
	if has(opts, "remove-source-files") {
		for _, s := range ops[:len(ops)-1] {
			if !remote(s.val) {
				a.write(st, s.val, "rsync --remove-source-files", s.raw, true)
			}
		}
	}
}

// remote: host:path or rsync://, a colon before any slash.
func remote(p string) bool {
	i := strings.IndexByte(p, ':')
	return i > 0 && !strings.Contains(p[:i], "/")
}
