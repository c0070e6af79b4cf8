// Package shell parses shell command lines into the simple commands they run, so
// that tool policies judge what a command does rather than the text it contains.
//
// Analyze reads a command line for the files it will write, as the shell would
// run it rather than as it is spelled: globs and braces expand against the real
// files, $PWD, $(pwd), `pwd`, ~ and $HOME expand, cd/pushd/popd and subshells
// move the working directory through lists, symlinks on existing path prefixes
// resolve, and the write operands of the usual file tools (rm, mv, cp, sed -i,
// find -delete, git checkout/rm/stash -u, rsync, dd of=, ...) are read from
// their options. Interpreter inline code (python -c, node -e, perl -e, ruby -e,
// heredocs fed to an interpreter) is exposed with the strings it names, and
// sh -c strings are analysed as shell.
//
// Limits. This is a first line, not the boundary: a program may write any file
// by its own logic (a script file, a compiled tool, inline code that builds a
// path from pieces such as 'hook-' + 'loop.json', a path read from a file),
// and no parser sees that; a write sandbox around state kept outside the
// workspace does. Inline code is only searched for the strings it names
// (NamesPath), never run or parsed as its language.
//
// Where a target cannot be known statically Analysis.Uncertain says why, so a
// guard can refuse or ask: an unknown variable or command substitution in a
// write operand, xargs operands from standard input, an interpreter reading
// code from standard input, a cd to an unknown directory, tar -x/unzip/patch
// (the archive names the paths). Not judged at all: git pull/merge/rebase/
// apply (they rewrite tracked files from history), `source file`, programs
// run from script files. The analysis is conservative where the shell's
// control flow is not known: every branch of if/case/||/&& is judged, a cd is
// assumed to succeed, a function body is judged where it is declared, and a
// path whose last part is a symlink is reported both as the link and as what
// it points to.
//
// Work is capped so that any line costs time linear in its length (see the
// benchmarks): 256 fields per word (brace and glob results; {1..100000}
// stops there), 512 directory reads for globs and 10,000 entries walked by
// find per command line, 10,000 statements plus expanded fields per command
// line, 40 symlinks per path, 4 levels of sh -c/eval strings. Past a cap the
// analysis keeps what it has and marks the result Uncertain. Nesting deeper
// than 64 brackets is read word by word (no expansion, no cd tracking) and
// marked Uncertain. Invalid UTF-8 is read as U+FFFD.
package shell

import (
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Call is one simple command: its words after assignments, with the redirection
// targets that write files.
type Call struct {
	Args []string // literal words; a word that is not literal is kept as written
	// Writes are the targets of output redirections (>, >>, &>, >|).
	Writes []string
	// Env are the VAR=value prefixes.
	Env []string
}

// word is a word's value with its quotes removed, so 'rm' "-rf" reads as rm -rf;
// a word with expansions ($X, $(...)) is kept as written.
func word(w *syntax.Word) string {
	if s, ok := literalValue(w); ok {
		return s
	}
	var sb strings.Builder
	_ = syntax.NewPrinter().Print(&sb, w)
	return sb.String()
}

// literalValue is a word's value when it holds no expansion at all.
func literalValue(w *syntax.Word) (string, bool) {
	if lit := w.Lit(); lit != "" {
		return lit, true
	}
	var b strings.Builder
	ok := true
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			b.WriteString(x.Value)
		case *syntax.SglQuoted:
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				if l, isLit := q.(*syntax.Lit); isLit {
					b.WriteString(l.Value)
				} else {
					ok = false
				}
			}
		default:
			ok = false
		}
	}
	return b.String(), ok
}

// Words splits src into words the way bash would (quotes removed) when it is one
// simple command, and returns nil otherwise (a list, a pipeline, a syntax error).
func Words(src string) []string {
	f, err := parseSyntax(src)
	if err != nil || len(f.Stmts) != 1 {
		return nil
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(call.Args))
	for _, w := range call.Args {
		out = append(out, word(w))
	}
	return out
}

// maxNesting bounds recursion into `bash -c '...'` strings.
const maxNesting = 4

// Parse returns every simple command in src, including those inside pipelines,
// lists (&&, ||, ;), subshells, command substitutions, and the string of
// `sh -c`/`bash -c` and the commands find runs (-exec). Launchers such as
// nice, env, timeout and sudo are kept as their own first word; Unwrap strips
// them. When src does not parse (an
// unterminated quote), it falls back to splitting on blanks and shell operators so
// a policy still sees the words.
func Parse(src string) []Call {
	return parse(src, 0)
}

func parse(src string, depth int) []Call {
	// The parser refuses invalid UTF-8 outright, and the fallback does not look
	// inside `sh -c` strings: one stray byte must not hide what a command runs.
	src = strings.ToValidUTF8(src, "\uFFFD")
	if nestsDeeper(src, maxParseDepth) {
		// The parser's time grows with the square of the nesting: past a depth
		// no real command reaches, the blank-splitting fallback still sees
		// every word, in linear time.
		return fallback(src, depth)
	}
	f, err := parseSyntax(src)
	if err != nil {
		return fallback(src, depth)
	}
	var calls []Call
	syntax.Walk(f, func(n syntax.Node) bool {
		stmt, isStmt := n.(*syntax.Stmt)
		if !isStmt {
			return true
		}
		call, isCall := stmt.Cmd.(*syntax.CallExpr)
		var c Call
		for _, r := range stmt.Redirs {
			switch r.Op {
			case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob:
				if r.Word != nil {
					c.Writes = append(c.Writes, word(r.Word))
				}
			}
		}
		if isCall {
			for _, a := range call.Assigns {
				v := ""
				if a.Value != nil {
					v = word(a.Value)
				}
				c.Env = append(c.Env, a.Name.Value+"="+v)
			}
			for _, w := range call.Args {
				c.Args = append(c.Args, word(w))
			}
		}
		if len(c.Args) > 0 || len(c.Writes) > 0 {
			calls = append(calls, c)
		}
		if isCall {
			calls = append(calls, nested(c.Args, depth, false)...)
		}
		if d, ok := stmt.Cmd.(*syntax.DeclClause); ok {
			for _, a := range d.Args {
				if a.Name != nil && a.Value != nil {
					c.Env = append(c.Env, a.Name.Value+"="+word(a.Value))
				}
			}
		}
		if depth < maxNesting {
			for _, code := range shellValues(c) {
				calls = append(calls, parse(code, depth+1)...)
			}
		}
		return true
	})
	return calls
}

// shellValues are the texts a call hands a program to run as shell: values
// of variables like GIT_EXTERNAL_DIFF (set before it, by env or export) and
// git's -c and --config-env settings (diff.external, "!" aliases).
func shellValues(c Call) []string {
	var out []string
	l := Launch(c.Args)
	env := slices.Clone(c.Env)
	for _, w := range c.Args[:min(l.Start, len(c.Args))] {
		if n, _, ok := strings.Cut(w, "="); ok && syntax.ValidName(n) {
			env = append(env, w)
		}
	}
	lookup := map[string]string{}
	for _, e := range env {
		n, v, _ := strings.Cut(e, "=")
		lookup[n] = v
		if runsShell(n) {
			out = append(out, runText(v))
		}
	}
	args := c.Args[min(l.Start, len(c.Args)):]
	if len(args) == 0 || baseName(args[0]) != "git" {
		return out
	}
	for i := 1; i < len(args) && strings.HasPrefix(args[i], "-"); i++ {
		opt, v := args[i], ""
		switch {
		case (opt == "-c" || opt == "--config-env") && i+1 < len(args):
			i++
			v = args[i]
		case strings.HasPrefix(opt, "--config-env="):
			opt, v = "--config-env", strings.TrimPrefix(opt, "--config-env=")
		case opt == "-C" || opt == "--git-dir" || opt == "--work-tree" || opt == "--namespace":
			i++
			continue
		default:
			continue
		}
		_, v, _ = strings.Cut(v, "=")
		if opt == "--config-env" {
			v = lookup[v]
		}
		out = append(out, runText(v))
	}
	return out
}

// runText is a value as the shell runs it: without the "!" of a git alias
// or the "|" of LESSOPEN.
func runText(v string) string {
	return strings.TrimLeft(strings.TrimPrefix(v, "!"), "|")
}

// maxParseDepth bounds the bracket nesting handed to the shell parser.
const maxParseDepth = 64

// nestsDeeper reports whether src opens more than max brackets ( { [ or
// backquotes without closing them at some point, quotes ignored: an
// overestimate is harmless (the fallback still sees every word).
func nestsDeeper(src string, max int) bool {
	depth, ticks := 0, 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '(', '{', '[':
			depth++
		case ')', '}', ']':
			if depth > 0 {
				depth--
			}
		case '`':
			ticks++
		}
		if depth > max || ticks > 2*max {
			return true
		}
	}
	return false
}

// reservedWord reports whether a word that starts a command in the fallback is
// shell grammar rather than the command (`{ rm -rf x; }`, `if true; then rm ...`).
func reservedWord(w string) bool {
	switch w {
	case "{", "}", "!", "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "time":
		return true
	}
	return false
}

// isCommandFlag reports whether a shell option introduces the command string:
// -c, or a cluster ending in c such as -lc.
func isCommandFlag(a string) bool {
	return a == "-c" || (strings.HasPrefix(a, "-") && strings.HasSuffix(a, "c") && !strings.HasPrefix(a, "--"))
}

func isShell(name string) bool {
	switch baseName(name) {
	case "sh", "bash", "zsh", "dash", "ksh":
		return true
	}
	return false
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, "/\\"); i >= 0 {
		return p[i+1:]
	}
	return p
}

func fallback(src string, depth int) []Call {
	var calls []Call
	repl := strings.NewReplacer("&&", "\n", "||", "\n", ";", "\n", "|", "\n", "(", " ", ")", " ", "`", "\n", "$(", "\n")
	for _, part := range strings.Split(repl.Replace(src), "\n") {
		fields := strings.Fields(part)
		var c Call
		for i := 0; i < len(fields); i++ {
			f := strings.Trim(fields[i], `"'`)
			if (f == ">" || f == ">>") && i+1 < len(fields) {
				c.Writes = append(c.Writes, strings.Trim(fields[i+1], `"'`))
				i++
				continue
			}
			if strings.HasPrefix(f, ">") {
				c.Writes = append(c.Writes, strings.TrimLeft(f, ">"))
				continue
			}
			if len(c.Args) == 0 && reservedWord(f) {
				continue
			}
			if len(c.Args) == 0 && strings.Contains(f, "=") && !strings.HasPrefix(f, "=") {
				c.Env = append(c.Env, f)
				continue
			}
			c.Args = append(c.Args, f)
		}
		if len(c.Args) > 0 || len(c.Writes) > 0 {
			calls = append(calls, c)
		}
		// The quotes are gone, so the words after `sh -c` are the inner command's.
		calls = append(calls, nested(c.Args, depth, true)...)
	}
	return calls
}

// parsers keeps syntax parsers between parses, so that a process gating many
// commands (or the sh -c strings inside one) does not build a parser's buffers
// for each. A parser is reusable once Parse returns (its File owns its nodes).
var parsers = sync.Pool{New: func() any { return syntax.NewParser(syntax.KeepComments(false)) }}

// parseSyntax parses src as a shell program with a pooled parser.
func parseSyntax(src string) (*syntax.File, error) {
	p := parsers.Get().(*syntax.Parser)
	defer parsers.Put(p)
	return p.Parse(strings.NewReader(src), "")
}

// nested are the commands a call runs inside its words, launchers peeled:
// the string of sh -c (or of su -c, watch, ...) and the programs of find
// -exec. In the fallback (split) the words after -c are the string.
func nested(args []string, depth int, split bool) []Call {
	if depth >= maxNesting {
		return nil
	}
	inner := Unwrap(args)
	if len(inner) == 0 {
		return nil
	}
	var calls []Call
	switch {
	case isShell(inner[0]):
		for i := 1; i < len(inner)-1; i++ {
			if isCommandFlag(inner[i]) {
				if split {
					calls = append(calls, fallback(strings.Join(inner[i+1:], " "), depth+1)...)
				} else {
					calls = append(calls, parse(inner[i+1], depth+1)...)
				}
				break
			}
		}
	case baseName(inner[0]) == "find":
		for _, cmd := range ExecCommands(inner[1:]) {
			calls = append(calls, Call{Args: cmd})
			calls = append(calls, nested(cmd, depth+1, split)...)
		}
	case baseName(inner[0]) == "sed":
		// sed's e command runs its text through a shell.
		args := make([]arg, len(inner)-1)
		for i, w := range inner[1:] {
			args[i] = arg{val: w, raw: w}
		}
		for _, s := range readSed(args).scripts {
			fx, _ := parseSed(s.val)
			for _, cmd := range fx.runs {
				calls = append(calls, parse(cmd, depth+1)...)
			}
		}
	}
	return calls
}

// JoinArgv is argv as one command line that Words splits back into argv:
// each word quoted where bash would otherwise read it differently.
func JoinArgv(argv []string) string {
	words := make([]string, len(argv))
	for i, a := range argv {
		q, err := syntax.Quote(a, syntax.LangBash)
		if err != nil {
			// A word bash cannot quote (a NUL byte) stays as it is: the
			// analysis then reads something other than the argv, never less.
			q = a
		}
		words[i] = q
	}
	return strings.Join(words, " ")
}
