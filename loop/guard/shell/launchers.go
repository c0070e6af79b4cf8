package shell

import (
	"slices"
	"strings"
)

// A launcher is a program that runs another program: nice, env, timeout,
// sudo, xargs, ... Its grammar says which of its options take a value and
// where the program it runs begins, so that the program is judged exactly as
// if it were run directly, whatever options the launcher is given.
type launcher struct {
	name  string   // base name
	short string   // short options that take a value (attached or the next word)
	long  []string // long options that take a value (--name=v or --name v)
	// permute: options may follow operands (su me -c cmd), so every word is
	// read as an option or an operand and only a command option runs anything.
	permute bool
	assigns bool // NAME=VALUE operands before the program set its environment (env)
	skip    int  // operands before the program (timeout's duration, chrt's priority, taskset's mask)
	// script are the options whose value is a shell command line (su -c,
	// script -c, env -S); shell are the flags with which the operands are
	// joined into one (sudo -s); join means they always are (watch, parallel),
	// unless one of direct is given (watch -x).
	script, shell, direct []string
	join                  bool
	noRun                 []string // options with which no program runs (command -v, chrt -p)
	needs                 []string // options without which no program runs (runuser -u)
	more                  bool     // it appends words read from its input (xargs, parallel)
	untilWord             []string // words that end the program (parallel's :::)
	chdir                 []string // options naming the directory the program starts in (env -C)
}

// launcherTable is every launcher the analysis sees through, sorted by name:
// a static table, unlike a map, costs the hook nothing at start-up.
var launcherTable = []launcher{
	{name: "builtin"},
	{name: "busybox"},
	{name: "chrt", short: "TPD", long: []string{"sched-runtime", "sched-period", "sched-deadline"}, skip: 1,
		noRun: []string{"p", "pid", "m", "max"}},
	{name: "command", noRun: []string{"v", "V"}},
	{name: "doas", short: "uC"},
	{name: "env", short: "uCSP", long: []string{"unset", "chdir", "split-string"}, assigns: true, script: []string{"S", "split-string"},
		chdir: []string{"C", "chdir"}},
	{name: "exec", short: "a"},
	{name: "ionice", short: "cnpPu", long: []string{"class", "classdata", "pid", "pgid", "uid"},
		noRun: []string{"p", "P", "u", "pid", "pgid", "uid"}},
	{name: "nice", short: "n", long: []string{"adjustment"}},
	{name: "nohup"},
	{name: "parallel", short: "aCdEIjLNnPSs", long: []string{"jobs", "arg-file", "colsep", "delimiter", "eof", "replace", "max-lines",
		"max-args", "max-procs", "max-chars", "sshlogin", "sshloginfile", "joblog", "results", "tmpdir", "workdir", "timeout",
		"retries", "delay", "memfree", "load", "halt", "tagstring", "basefile", "return", "env", "nice"},
		join: true, more: true, untilWord: []string{":::", "::::", ":::+", "::::+"}},
	{name: "pkexec", long: []string{"user"}},
	// runuser -u USER runs a program; without -u it is su.
	{name: "runuser", short: "cgGswu", long: []string{"command", "session-command", "group", "supp-group", "shell", "whitelist-environment", "user"},
		permute: true, script: []string{"c", "command", "session-command"}, needs: []string{"u", "user"}},
	{name: "script", short: "cEIOBTmo", long: []string{"command", "echo", "log-in", "log-out", "log-io", "log-timing", "logging-format", "output-limit"},
		permute: true, script: []string{"c", "command"}},
	{name: "setsid"},
	{name: "stdbuf", short: "ioe", long: []string{"input", "output", "error"}},
	{name: "su", short: "cgGsw", long: []string{"command", "session-command", "group", "supp-group", "shell", "whitelist-environment"}, permute: true, script: []string{"c", "command", "session-command"}},
	{name: "sudo", short: "uUgCDprtTR", long: []string{"user", "other-user", "group", "close-from", "chdir", "chroot", "prompt", "role", "type", "command-timeout", "host"},
		shell: []string{"s", "i", "shell", "login"}, noRun: []string{"l", "list", "v", "validate", "e", "edit"}, chdir: []string{"D", "chdir"}},
	{name: "taskset", skip: 1, noRun: []string{"p", "pid"}},
	{name: "time", short: "of", long: []string{"output", "format"}},
	{name: "timeout", short: "sk", long: []string{"signal", "kill-after"}, skip: 1},
	{name: "toybox"},
	{name: "watch", short: "nq", long: []string{"interval", "equexit"}, join: true, direct: []string{"x", "exec"}},
	{name: "xargs", short: "adEILnPs", long: []string{"arg-file", "delimiter", "max-lines", "max-args", "max-procs", "max-chars", "process-slot-var"},
		more: true},
}

// launcherFor is the launcher named name, if it is one.
func launcherFor(name string) (*launcher, bool) {
	i, ok := slices.BinarySearchFunc(launcherTable, name, func(g launcher, n string) int { return strings.Compare(g.name, n) })
	if !ok {
		return nil, false
	}
	return &launcherTable[i], true
}

// Launched is what a command's words run once its launchers are peeled off.
type Launched struct {
	// Start is the index of the program's first word in the words given;
	// len(words) when no program runs or Script runs instead.
	Start int
	// Script, when HasScript, is the shell command line that runs instead of
	// words[Start:] (su -c, watch, env -S, sudo -s, parallel).
	Script    string
	HasScript bool
	// More: a launcher appends words it reads from its input (xargs,
	// parallel), so the program's arguments are not all known.
	More bool
	// Dirs are the directories the launchers change to, in order (env -C).
	Dirs []string
	// Via are the launchers peeled off, outermost first.
	Via []string
}

// Launch peels the launchers off words, nested ones included (nice env
// timeout 5 cmd runs cmd).
func Launch(words []string) Launched {
	var l Launched
	for l.Start < len(words) {
		name := strings.TrimPrefix(baseName(words[l.Start]), `\`)
		g, ok := launcherFor(name)
		if !ok {
			return l
		}
		l.Via = append(l.Via, name)
		l.More = l.More || g.more
		r := g.program(words[l.Start+1:])
		l.Dirs = append(l.Dirs, r.dirs...)
		if r.hasScript {
			l.Start, l.Script, l.HasScript = len(words), r.script, true
			if l.More {
				// The words read from input follow the command line:
				// "$@" stands for them, a word no analysis knows.
				l.Script += ` "$@"`
			}
			return l
		}
		l.Start += 1 + r.start
	}
	return l
}

// run is what one launcher runs: the program from start in its words, or a
// shell command line.
type run struct {
	start     int
	script    string
	hasScript bool
	dirs      []string
}

// program reads a launcher's words (after its name) by its grammar.
func (g launcher) program(args []string) run {
	opts := map[string]string{}
	var dirs []string
	var operands []int // indexes of operands
	set := func(name, v string) {
		opts[name] = v
		if slices.Contains(g.chdir, name) {
			dirs = append(dirs, v)
		}
	}
words:
	for i := 0; i < len(args); i++ {
		s := args[i]
		switch {
		case s == "--":
			for j := i + 1; j < len(args); j++ {
				operands = append(operands, j)
			}
			break words
		case s == "-":
			set("-", "") // env's and su's spelling of -i and -l
		case strings.HasPrefix(s, "--"):
			name, v, hasV := strings.Cut(s[2:], "=")
			if !hasV && slices.Contains(g.long, name) && i+1 < len(args) {
				i++
				v = args[i]
			}
			set(name, v)
		case strings.HasPrefix(s, "-") && len(s) > 1:
			for j := 1; j < len(s); j++ {
				c := s[j : j+1]
				if !strings.Contains(g.short, c) {
					set(c, "")
					continue
				}
				v := s[j+1:]
				if v == "" && i+1 < len(args) {
					i++
					v = args[i]
				}
				set(c, v)
				break
			}
		default:
			operands = append(operands, i)
			if !g.permute {
				for j := i + 1; j < len(args); j++ {
					operands = append(operands, j)
				}
				break words
			}
		}
	}
	none := run{start: len(args), dirs: dirs}
	if anyOpt(opts, g.noRun) {
		return none
	}
	if g.assigns {
		operands = dropAssigns(args, operands)
	}
	for _, o := range g.script {
		if v, ok := opts[o]; ok {
			if g.assigns {
				// env -S 'cmd a' b runs cmd a b.
				v = strings.Join(append([]string{v}, pick(args, operands)...), " ")
			}
			return run{start: len(args), script: v, hasScript: true, dirs: dirs}
		}
	}
	switch {
	case len(g.needs) > 0 && !anyOpt(opts, g.needs):
		return none
	case len(g.needs) == 0 && g.permute:
		return none // su without -c starts an interactive shell
	case len(operands) <= g.skip:
		return none
	}
	operands = operands[g.skip:]
	if g.join && !anyOpt(opts, g.direct) || anyOpt(opts, g.shell) {
		words := pick(args, operands)
		for k, w := range words {
			if slices.Contains(g.untilWord, w) {
				words = words[:k]
				break
			}
		}
		return run{start: len(args), script: strings.Join(words, " "), hasScript: true, dirs: dirs}
	}
	return run{start: operands[0], dirs: dirs}
}

func anyOpt(opts map[string]string, names []string) bool {
	for _, n := range names {
		if _, ok := opts[n]; ok {
			return true
		}
	}
	return false
}

// dropAssigns skips the NAME=VALUE operands that come first.
func dropAssigns(args []string, operands []int) []int {
	for len(operands) > 0 {
		name, _, ok := strings.Cut(args[operands[0]], "=")
		if !ok || name == "" || strings.Contains(name, "/") {
			break
		}
		operands = operands[1:]
	}
	return operands
}

func pick(args []string, idx []int) []string {
	out := make([]string, len(idx))
	for k, i := range idx {
		out[k] = args[i]
	}
	return out
}

// Unwrap strips the launchers off a command's words (see launcherTable),
// returning the words of the program that actually runs; a launcher that
// runs a shell command line (su -c, watch, env -S) gives sh -c and that line.
func Unwrap(args []string) []string {
	l := Launch(args)
	if l.HasScript {
		return []string{"sh", "-c", l.Script}
	}
	return args[l.Start:]
}

// ExecCommands are the programs find runs for each match (-exec, -execdir,
// -ok, -okdir up to ";" or "+"), given find's words after its name (Parse
// keeps a backslash-quoted \; as written).
func ExecCommands(args []string) [][]string {
	var out [][]string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-exec", "-execdir", "-ok", "-okdir":
		default:
			continue
		}
		j := i + 1
		for j < len(args) && args[j] != ";" && args[j] != `\;` && args[j] != "+" {
			j++
		}
		if j > i+1 {
			out = append(out, args[i+1:j])
		}
		i = j
	}
	return out
}
