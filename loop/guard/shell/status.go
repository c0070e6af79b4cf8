package shell

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"mvdan.cc/sh/v3/syntax"
)

// StatusCall is a simple command whose own exit status is the command line's,
// so a rule about the line's exit code may speak of it (see StatusCalls).
type StatusCall struct {
	// Text is the program, its arguments and its redirections, re-printed
	// with shell quoting; launchers (env, time, timeout, ...) and VAR=value
	// prefixes are left out.
	Text string
	// starts are the byte ranges of Text in which a match may begin: the
	// program, and the plain words that are not another program's text.
	starts [][2]int
}

// Matches reports whether re finds a match in c.Text that begins in the program
// word or in a plain argument or redirection target: a match that begins
// inside quoted text with blanks (`grep "go test"`, `git commit -m "go test
// passes"`) or in the arguments of a program that only prints, tests or
// searches them (echo, printf, true, grep, ...) is the text of another program,
// not the command that ran.
func (c StatusCall) Matches(re *regexp.Regexp) bool {
	for _, m := range re.FindAllStringIndex(c.Text, -1) {
		for _, s := range c.starts {
			if m[0] >= s[0] && m[0] < s[1] {
				return true
			}
		}
	}
	return false
}

// StatusCalls returns the simple commands of the shell line src whose own exit
// status was code, given that the whole line exited with code. For code 0 they
// are the commands that certainly exited 0; for another code, the commands that
// may have produced it. Concretely:
//
//   - a list (`;`, newlines) reports its last command (`exit` or `exit $?`
//     passes on the one before);
//   - a pipeline reports its last command, or, once `set -o pipefail` ran
//     earlier in the line (or `bash -o pipefail -c`), every command of it;
//   - `a && b` reports b, and a too when the line exited 0 (both succeeded)
//     or failed (either may have);
//   - `a || b` exiting 0 reports nothing unless b can only fail (`exit 1`,
//     `false`), since `|| true`, `|| :` or `|| exit 0` mask a's status; exiting
//     non-zero it reports both (both failed);
//   - subshells, { } blocks, `time`, launchers (env, timeout, nice, sudo, ...)
//     and `sh -c '...'` strings are looked through;
//   - a negated (`!`) or background (`&`) command, if/while/for/case, and a
//     line that does not parse report nothing; nor does a line that defines a
//     function or alias, or sets PATH, since its program names may not run
//     the programs they name.
func StatusCalls(src string, code int) []StatusCall {
	src = strings.ToValidUTF8(src, "\uFFFD")
	if nestsDeeper(src, maxParseDepth) {
		return nil
	}
	f, err := parseSyntax(src)
	if err != nil || redefinesPrograms(f) {
		return nil
	}
	return statusOfList(f.Stmts, code, false, 0)
}

// redefinesPrograms reports whether a line may change what a program name
// runs: a function (`go() { true; }; go test`), an alias or builtin toggle,
// or a PATH (or a shell start-up file) of its own.
func redefinesPrograms(f *syntax.File) bool {
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.FuncDecl:
			found = true
		case *syntax.Assign:
			if x.Name != nil && (x.Name.Value == "PATH" || x.Name.Value == "BASH_ENV" || x.Name.Value == "ENV") {
				found = true
			}
		case *syntax.CallExpr:
			if len(x.Args) > 0 {
				switch x.Args[0].Lit() {
				case "alias", "enable", "hash":
					found = true
				}
			}
		}
		return !found
	})
	return found
}

// statusOfList follows a list of statements to the one whose status is the
// list's, tracking `set -o pipefail` along the way.
func statusOfList(stmts []*syntax.Stmt, code int, pipefail bool, depth int) []StatusCall {
	last := len(stmts) - 1
	for last >= 0 && passesStatusOn(stmts[last]) {
		last--
	}
	if last < 0 {
		return nil
	}
	for _, s := range stmts[:last] {
		if call, ok := s.Cmd.(*syntax.CallExpr); ok && !s.Negated && !s.Background {
			pipefail = setsPipefail(literalWords(call.Args), pipefail)
		}
	}
	return statusOf(stmts[last], code, pipefail, depth)
}

func statusOf(s *syntax.Stmt, code int, pipefail bool, depth int) []StatusCall {
	if s == nil || s.Negated || s.Background || s.Coprocess {
		return nil
	}
	switch x := s.Cmd.(type) {
	case *syntax.CallExpr:
		return statusOfCall(x, s.Redirs, code, depth)
	case *syntax.Subshell:
		return statusOfList(x.Stmts, code, pipefail, depth)
	case *syntax.Block:
		return statusOfList(x.Stmts, code, pipefail, depth)
	case *syntax.TimeClause:
		// `time` reports the status of what it timed.
		return statusOf(x.Stmt, code, pipefail, depth)
	case *syntax.BinaryCmd:
		switch x.Op {
		case syntax.Pipe, syntax.PipeAll:
			if pipefail {
				return append(statusOf(x.X, code, pipefail, depth), statusOf(x.Y, code, pipefail, depth)...)
			}
			return statusOf(x.Y, code, pipefail, depth)
		case syntax.AndStmt:
			// Exiting 0, both sides ran and succeeded; exiting non-zero,
			// either side may have failed.
			return append(statusOf(x.X, code, pipefail, depth), statusOf(x.Y, code, pipefail, depth)...)
		case syntax.OrStmt:
			if code != 0 {
				return append(statusOf(x.X, code, pipefail, depth), statusOf(x.Y, code, pipefail, depth)...)
			}
			if alwaysFails(x.Y) {
				return statusOf(x.X, code, pipefail, depth)
			}
		}
	}
	return nil
}

// statusOfCall is the call itself (past its launchers) and, for `sh -c
// 'script'`, the script's own status commands.
func statusOfCall(call *syntax.CallExpr, redirs []*syntax.Redirect, code, depth int) []StatusCall {
	words := literalWords(call.Args)
	if len(words) == 0 {
		return nil // assignments only: no program ran
	}
	l := Launch(words)
	for _, via := range l.Via {
		if !passesStatus(via) {
			return nil
		}
	}
	if l.HasScript {
		return statusOfScript(l.Script, code, false, depth)
	}
	if l.Start >= len(words) {
		return nil
	}
	out := []StatusCall{printCall(call.Args[l.Start:], words[l.Start:], redirs)}
	if !isShell(words[l.Start]) {
		return out
	}
	pipefail := false
	args := words[l.Start+1:]
	for i := 0; i < len(args); i++ {
		if isCommandFlag(args[i]) {
			if i+1 < len(args) && isQuotedLiteral(call.Args[l.Start+2+i]) {
				out = append(out, statusOfScript(args[i+1], code, pipefail, depth)...)
			}
			break
		}
		pipefail = setsPipefail(args[i:], pipefail)
	}
	return out
}

// passesStatus: the launchers whose exit status is the program's own: they
// run it and wait for it (or exec it). setsid may fork and return at once,
// xargs and parallel sum up many runs, watch and script answer for
// themselves.
func passesStatus(launcher string) bool {
	switch launcher {
	case "nice", "env", "exec", "timeout", "ionice", "chrt",
		"taskset", "stdbuf", "nohup", "sudo", "doas", "su",
		"runuser", "command", "builtin", "time", "busybox",
		"toybox", "pkexec":
		return true
	}
	return false
}

// statusOfScript follows a shell command line that a call runs (sh -c, su -c).
func statusOfScript(src string, code int, pipefail bool, depth int) []StatusCall {
	if depth >= maxNesting {
		return nil
	}
	f, err := parseSyntax(src)
	if err != nil {
		return nil
	}
	return statusOfList(f.Stmts, code, pipefail, depth+1)
}

// isQuotedLiteral reports whether w is quoted text without expansions, so its
// value is what the shell passes.
func isQuotedLiteral(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				if _, ok := q.(*syntax.Lit); !ok {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// printCall re-prints args and the redirections, noting where a match may begin.
func printCall(args []*syntax.Word, words []string, redirs []*syntax.Redirect) StatusCall {
	var b strings.Builder
	var starts [][2]int
	textProgram := argsAreText(words[0])
	add := func(w *syntax.Word, value string, matchable bool) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		start := b.Len()
		if isQuotedLiteral(w) {
			b.WriteString(quoted(value))
		} else {
			b.WriteString(value) // word keeps a word with expansions as written
		}
		if matchable && plain(w) {
			starts = append(starts, [2]int{start, b.Len()})
		}
	}
	for i, w := range args {
		add(w, words[i], i == 0 || !textProgram)
	}
	for _, r := range redirs {
		if r.Word == nil || r.Hdoc != nil {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		if r.N != nil {
			b.WriteString(r.N.Value)
		}
		b.WriteString(r.Op.String())
		if r.Op == syntax.DplOut || r.Op == syntax.DplIn {
			b.WriteString(word(r.Word)) // 2>&1 names a descriptor, not text
			continue
		}
		add(r.Word, word(r.Word), true)
	}
	return StatusCall{Text: b.String(), starts: starts}
}

// plain reports whether w is one literal word without blanks: a program name,
// a subcommand, an option, a path. Quoted text with blanks is a message or a
// pattern, and a word with expansions is not known before it runs.
func plain(w *syntax.Word) bool {
	if !isQuotedLiteral(w) {
		return false
	}
	return !strings.ContainsFunc(word(w), unicode.IsSpace)
}

func quoted(v string) string {
	if q, err := syntax.Quote(v, syntax.LangBash); err == nil {
		return q
	}
	return v
}

// argsAreText reports whether a program's arguments are text it prints, tests
// or searches for, never a command it runs.
func argsAreText(program string) bool {
	switch baseName(program) {
	case "echo", "printf", "print", "true", "false", ":", "test", "[", "[[", "expr",
		"grep", "egrep", "fgrep", "rg", "ag", "ack", "git-grep":
		return true
	}
	return false
}

// literalWords is each word's value as word gives it.
func literalWords(ws []*syntax.Word) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = word(w)
	}
	return out
}

// setsPipefail reads `set -o pipefail` / `set +o pipefail` (also in a cluster
// such as -euo) from the words of a call, or from a shell's options.
func setsPipefail(words []string, on bool) bool {
	if len(words) > 0 && words[0] == "set" {
		words = words[1:]
	}
	for i := 0; i+1 < len(words); i++ {
		a := words[i]
		if len(a) >= 2 && (a[0] == '-' || a[0] == '+') && a[1] != '-' && strings.HasSuffix(a, "o") && words[i+1] == "pipefail" {
			on = a[0] == '-'
		}
	}
	return on
}

// passesStatusOn reports whether s ends a list with the status of the command
// before it: `exit` or `exit $?`.
func passesStatusOn(s *syntax.Stmt) bool {
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || s.Negated || s.Background || len(call.Assigns) > 0 || len(call.Args) == 0 {
		return false
	}
	words := literalWords(call.Args)
	return words[0] == "exit" && (len(words) == 1 || len(words) == 2 && (words[1] == "$?" || words[1] == `"$?"`))
}

// alwaysFails reports whether s can only exit non-zero (`exit 1`, `false`),
// so `a || s` exiting 0 is a's status.
func alwaysFails(s *syntax.Stmt) bool {
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || s.Negated || s.Background || len(call.Args) == 0 {
		return false
	}
	words := literalWords(call.Args)
	switch {
	case len(words) == 1 && words[0] == "false":
		return true
	case len(words) == 2 && (words[0] == "exit" || words[0] == "return"):
		// The shell keeps the low 8 bits: `exit 256` succeeds.
		n, err := strconv.Atoi(words[1])
		return err == nil && n%256 != 0
	}
	return false
}
