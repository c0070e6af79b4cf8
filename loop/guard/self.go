package guard

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/hook-loop/hook-loop/loop/guard/shell"
)

// readOnlyCommands are hook-loop's commands that change nothing: the agent may
// run them to see where it stands. Every other command (install, uninstall,
// reload, the operator commands, the *-hook commands, serve, store migrate,
// and any command added later) is the person's.
// (Static slices, unlike package-level maps, cost the hook nothing at start-up.)
var readOnlyCommands = []string{
	"status", "log", "validate", "graph", "simulate",
	"doctor", "schema", "gallery", "completion",
	"help", "version",
}

// readOnlyHooks are the read-only subcommands of `hook-loop hooks`; bare
// `hooks` lists the declared hooks.
var readOnlyHooks = []string{"", "list", "points", "help"}

// SelfCommand reports the first hook-loop command of c that is not read-only,
// as "sub [subsub]". hook-loop is recognised by its name or by the path of
// the running binary (Self), behind any launcher with its options (nice,
// env, timeout, setsid, xargs, sudo, su -c, ...: see shell.Launch), inside
// sh -c strings and as a program find runs; interpreter inline code that
// names hook-loop and one of its writing commands counts too.
func (p *Policy) SelfCommand(c Call) (string, bool) {
	for _, sc := range c.Calls {
		l := shell.Launch(sc.Args)
		args := sc.Args[l.Start:]
		if len(args) == 0 || !p.isSelf(args[0]) {
			continue
		}
		if sub, ok := writingSubcommand(args[1:]); ok {
			return sub, true
		}
		if l.More && firstWord(args[1:]) == "" {
			// xargs hook-loop: its command comes from standard input.
			return "<a command from standard input>", true
		}
	}
	for _, in := range c.Analysis.Inline {
		if in.Lang == "sh" {
			continue
		}
		i := slices.IndexFunc(in.Names, p.isSelf)
		if i < 0 {
			continue
		}
		if sub, ok := writingSubcommand(in.Names[i+1:]); ok {
			return sub, true
		}
	}
	return "", false
}

// selfNames are hook-loop's binaries: the CLI and the lean hook binary
// installed beside it (cmd/hook-loop-hook), which hands every other command to
// the CLI.
var selfNames = []string{"hook-loop", "hook-loop-hook"}

func (p *Policy) isSelf(word string) bool {
	word = strings.TrimPrefix(word, `\`)
	if slices.Contains(selfNames, filepath.Base(word)) {
		return true
	}
	if p.Self == nil || !strings.Contains(word, "/") {
		return false
	}
	self := p.Self()
	if self == "" {
		return false
	}
	if isSelfPath(filepath.Clean(word), self) {
		return true
	}
	real, err := filepath.EvalSymlinks(word)
	return err == nil && isSelfPath(real, self)
}

// binaries are the hook binaries (this one and its sibling, as isSelfPath
// knows them): replaced by `exit 0`, every hook would allow. Asked only when
// a call writes, like Self.
func (p *Policy) binaries() []string {
	if p.Self == nil {
		return nil
	}
	self := p.Self()
	if self == "" {
		return nil
	}
	dir, ext := filepath.Dir(self), ""
	if strings.EqualFold(filepath.Ext(self), ".exe") {
		ext = filepath.Ext(self)
	}
	out := []string{self}
	for _, name := range selfNames {
		if p := filepath.Join(dir, name+ext); p != self {
			out = append(out, p)
		}
	}
	return out
}

func isSelfPath(path, self string) bool {
	return path == self || filepath.Dir(path) == filepath.Dir(self) && slices.Contains(selfNames, filepath.Base(path))
}

// writingSubcommand reads hook-loop's arguments: the command named by the
// first word that is not a flag, unless --help or --version asks only for text.
func writingSubcommand(args []string) (string, bool) {
	var words []string
	for _, a := range args {
		switch a {
		case "--help", "-h", "--version", "-v":
			return "", false
		}
		if !strings.HasPrefix(a, "-") {
			words = append(words, a)
		}
	}
	if len(words) == 0 {
		return "", false // bare hook-loop prints its help
	}
	sub, next := words[0], ""
	if len(words) > 1 {
		next = words[1]
	}
	switch {
	case sub == "hooks":
		if slices.Contains(readOnlyHooks, next) {
			return "", false
		}
		return sub + " " + next, true
	case sub == "doctor" && hasFlag(args, "fix"):
		return "doctor --fix", true
	case sub == "simulate" && (hasFlag(args, "event-log") || hasFlag(args, "resume")):
		// simulate writes the log it is given; bare, it writes only a
		// temporary log of its own.
		return "simulate with a log to write", true
	case slices.Contains(readOnlyCommands, sub):
		return "", false
	}
	if next != "" && !strings.HasSuffix(sub, "-hook") {
		return sub + " " + next, true
	}
	return sub, true
}

// firstWord is the first of args that is not a flag, or "".
func firstWord(args []string) string {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

// hasFlag reports --name or -name, with or without =value, among args.
func hasFlag(args []string, name string) bool {
	return slices.ContainsFunc(args, func(a string) bool {
		a = strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		return a == name || strings.HasPrefix(a, name+"=")
	})
}

// lockers take a lock on the file named by their first operand.
var lockers = []string{"flock", "lockfile", "lckdo"}

// locksOwnFiles reports the protected file a call locks: flock (and its kin)
// on a file under a protected folder, or interpreter code that imports a lock
// call and names one.
// takesLock reports whether c runs a locking program at all (the cheap test
// before locksOwnFiles resolves what it locks).
func takesLock(c Call) bool {
	for _, sc := range c.Calls {
		if args := shell.Unwrap(sc.Args); len(args) >= 2 && slices.Contains(lockers, filepath.Base(args[0])) {
			return true
		}
	}
	return false
}

func locksOwnFiles(c Call, protected []string) (string, bool) {
	for _, sc := range c.Calls {
		args := shell.Unwrap(sc.Args)
		if len(args) < 2 || !slices.Contains(lockers, filepath.Base(args[0])) {
			continue
		}
		for _, a := range args[1:] {
			if strings.HasPrefix(a, "-") {
				continue
			}
			for _, r := range c.resolver().Resolve(a) {
				if f := underAny(r, protected); f != "" {
					return r, true
				}
			}
			break // the lock file is the first operand; the rest is the command
		}
	}
	for _, in := range c.Analysis.Inline {
		if in.Lang == "sh" || !strings.Contains(in.Code, "flock") && !strings.Contains(in.Code, "lockf") {
			continue
		}
		if f, ok := shell.NamesPath(in, protected); ok {
			return f, true
		}
	}
	return "", false
}
