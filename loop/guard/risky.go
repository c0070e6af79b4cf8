package guard

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/hook-loop/hook-loop/loop/guard/shell"
)

// A checker says why a program run with args (after its name) is risky, or "".
type checker func(name string, args []string) string

// riskyProgram is the checker of a program's base name, or nil. A program not
// listed is never risky by itself (sudo and doas are judged among the
// launchers). A switch, unlike a package-level map, costs the hook nothing at
// start-up.
func riskyProgram(name string) checker {
	switch name {
	case "rm":
		return rmRisk
	case "git":
		return gitRisk
	case "find":
		return findRisk
	case "dd":
		return ddRisk
	case "chmod", "chown":
		return recursiveOnHomeRisk
	case "mkfs", "mkfs.ext4", "mkfs.xfs", "fdisk", "parted", "shutdown", "reboot", "halt", "poweroff":
		return machineRisk
	case "kill", "pkill", "killall":
		return killRisk
	}
	return nil
}

// Killing hook-loop's hooks opens the gate: a hook killed or stopped before
// it answers lets the agent proceed. The rule, for kill, pkill and killall
// however they are launched:
//
//   - a pkill or killall name or pattern that is not literal, or that, read
//     as a regular expression (as text when it is not one), matches a hook's
//     command line (hookCommandLines) is refused;
//   - kill -1 (every process of the user) is refused;
//   - a kill whose pids are not literal numbers (a command substitution, a
//     variable, pids xargs reads from a pipe) is refused when the command line
//     names a hook process: a word of it matching a hook's command line the
//     same way, or a process lookup (pgrep, pidof, grep) whose pattern is not
//     literal.
//
// A kill of literal pids stays allowed: a number names no process, and the
// pids of a lookup run in an earlier call are beyond a parser (state kept
// outside the workspace and the harness's sandbox close that).
func killRisk(name string, args []string) string {
	if name == "kill" {
		for _, t := range killTargets(args) {
			if t == "-1" {
				return "kill -1 would kill every process of the user, hook-loop's hooks included"
			}
		}
		return ""
	}
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			continue
		}
		if notLiteral(a) {
			return name + " " + a + " could kill hook-loop's own hooks (its pattern is not known)"
		}
		if namesHook(a) {
			return name + " " + a + " would kill hook-loop's own hooks"
		}
	}
	return ""
}

// hookCommandLines are the command lines of hook-loop's hook processes (the
// harnesses run `hook-loop-hook <harness>-hook` or `hook-loop <harness>-hook`)
// and of the servers earlier versions ran (__hookd, __pg-keeper), which
// doctor --fix stops.
var hookCommandLines = []string{
	"hook-loop-hook claude-hook", "hook-loop codex-hook", "hook-loop opencode-hook", "hook-loop pi-hook",
	"hook-loop __hookd", "hook-loop __pg-keeper",
	"hook-loop-hook copilot-hook", "hook-loop-hook qwen-hook",
}

// namesHook reports whether word, read as a pattern, matches a hook's
// command line.
func namesHook(word string) bool {
	re, err := regexp.Compile(word)
	for _, l := range hookCommandLines {
		if err == nil && re.MatchString(l) || err != nil && strings.Contains(l, word) {
			return true
		}
	}
	return false
}

// notLiteral: a word Parse kept as written because it expands.
func notLiteral(word string) bool { return strings.ContainsAny(word, "$`") }

// killTargets are kill's pid operands: after the signal (-9, -STOP, -s SIG,
// -n NUM, --signal SIG) and "--"; none for -l and -L, which list signals.
func killTargets(args []string) []string {
	if len(args) > 0 {
		switch a := args[0]; {
		case a == "-l" || a == "-L" || a == "--list" || a == "--table":
			return nil
		case a == "-s" || a == "-n" || a == "--signal":
			args = args[min(2, len(args)):]
		case strings.HasPrefix(a, "-") && a != "--":
			args = args[1:]
		}
	}
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	return args
}

// lookups find processes by a pattern (their operands that are not flags).
var lookups = []string{"pgrep", "pidof", "grep", "egrep", "fgrep", "rg"}

// killByLookup applies the third part of the rule above to the simple
// commands of one command line.
func killByLookup(calls []shell.Call) string {
	killer := ""
	for _, c := range calls {
		l := shell.Launch(c.Args)
		args := c.Args[l.Start:]
		if len(args) == 0 || strings.TrimPrefix(filepath.Base(args[0]), `\`) != "kill" {
			continue
		}
		targets := killTargets(args[1:])
		if l.More || slices.ContainsFunc(targets, notLiteral) {
			killer = strings.Join(args, " ")
			break
		}
	}
	if killer == "" {
		return ""
	}
	for _, c := range calls {
		args := shell.Unwrap(c.Args)
		lookup := len(args) > 0 && slices.Contains(lookups, filepath.Base(args[0]))
		for _, w := range args {
			if strings.HasPrefix(w, "-") || len(w) < 2 {
				continue
			}
			if namesHook(w) || lookup && notLiteral(w) {
				return fmt.Sprintf("%s signals the processes a lookup found, and the command line names hook-loop's hooks (%s)", killer, w)
			}
		}
	}
	return ""
}

// gitSubRisk is the checker of a git subcommand (name is the subcommand), or nil.
func gitSubRisk(sub string) checker {
	switch sub {
	case "push":
		return gitPushRisk
	case "reset":
		return gitResetRisk
	case "clean":
		return gitCleanRisk
	case "checkout", "restore":
		return gitCheckoutRisk
	case "branch":
		return gitBranchRisk
	case "stash":
		return gitStashRisk
	}
	return nil
}

// RiskyCall names why a simple command is risky, or returns "".
func RiskyCall(c shell.Call) string {
	if len(c.Args) == 0 {
		return ""
	}
	l := shell.Launch(c.Args)
	for _, b := range l.Via {
		if b == "sudo" || b == "doas" {
			return b + " runs a command as another user"
		}
	}
	args := shell.Unwrap(c.Args)
	if len(args) == 0 {
		return ""
	}
	// A leading backslash only skips the shell's aliases: \rm is rm.
	name := strings.TrimPrefix(filepath.Base(args[0]), `\`)
	if check := riskyProgram(name); check != nil {
		return check(name, args[1:])
	}
	return ""
}

func machineRisk(name string, _ []string) string {
	return name + " changes the machine, not the project"
}

func rmRisk(_ string, args []string) string {
	recursive := false
	var targets []string
	endOpts := false
	for _, a := range args {
		switch {
		case !endOpts && a == "--":
			endOpts = true
		case !endOpts && (a == "--recursive" || a == "--dir"):
			recursive = recursive || a == "--recursive"
		case !endOpts && strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--"):
			if strings.ContainsAny(a, "rR") {
				recursive = true
			}
		default:
			targets = append(targets, a)
		}
	}
	if recursive {
		return "rm -r deletes whole directory trees"
	}
	for _, t := range targets {
		if dangerousRmTarget(t) {
			return "rm " + t + " deletes outside the project"
		}
	}
	return ""
}

func dangerousRmTarget(t string) bool {
	if t == "/" || t == "~" || strings.HasPrefix(t, "~/") || t == "*" || t == "/*" || t == ".." || strings.HasPrefix(t, "../") || t == "." {
		return true
	}
	if strings.HasPrefix(t, "$HOME") {
		return true
	}
	if filepath.IsAbs(t) {
		return !(strings.HasPrefix(t, "/tmp/") || strings.HasPrefix(t, "/var/tmp/"))
	}
	for _, part := range strings.Split(filepath.ToSlash(t), "/") {
		if part == ".git" {
			return true
		}
	}
	return false
}

// findRisk: find deletes what it matches with -delete, or with -exec rm.
func findRisk(_ string, args []string) string {
	for i, a := range args {
		if a == "-delete" {
			return "find -delete deletes every match"
		}
		if (a == "-exec" || a == "-execdir" || a == "-ok" || a == "-okdir") && i+1 < len(args) {
			if prog := filepath.Base(args[i+1]); prog == "rm" || prog == "shred" || prog == "unlink" {
				return "find " + a + " " + prog + " deletes every match"
			}
		}
	}
	return ""
}

func ddRisk(_ string, args []string) string {
	for _, a := range args {
		if strings.HasPrefix(a, "of=/dev/") {
			return "dd writes to a device"
		}
	}
	return ""
}

func recursiveOnHomeRisk(name string, args []string) string {
	if (slices.Contains(args, "-R") || slices.Contains(args, "--recursive")) && slices.ContainsFunc(args, func(a string) bool { return a == "/" || a == "~" }) {
		return name + " -R on / or ~"
	}
	return ""
}

func gitRisk(_ string, args []string) string {
	sub, subArgs := gitSub(args)
	if check := gitSubRisk(sub); check != nil {
		return check(sub, subArgs)
	}
	return ""
}

func gitSub(args []string) (string, []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" {
			i++
			continue
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		return a, args[i+1:]
	}
	return "", nil
}

func gitPushRisk(_ string, args []string) string {
	operands := 0
	for _, a := range args {
		if a == "--force" || a == "-f" || strings.HasPrefix(a, "--force-with-lease") || a == "--mirror" || a == "--delete" || a == "-d" || (strings.HasPrefix(a, "+") && len(a) > 1) {
			return "git push " + a + " rewrites the remote"
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		operands++
		// After the remote, a refspec with an empty source deletes the remote ref.
		if operands > 1 && strings.HasPrefix(a, ":") && len(a) > 1 {
			return "git push " + a + " deletes a remote branch"
		}
	}
	return ""
}

func gitResetRisk(_ string, args []string) string {
	if slices.Contains(args, "--hard") || slices.Contains(args, "--merge") || slices.Contains(args, "--keep") {
		return "git reset --hard throws away work"
	}
	return ""
}

func gitCleanRisk(_ string, args []string) string {
	for _, a := range args {
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "f") || a == "--force" {
			return "git clean -f deletes untracked files"
		}
	}
	return ""
}

// gitCheckoutRisk: "." discards every local change; checkout -f throws away the
// changes that would block switching.
func gitCheckoutRisk(sub string, args []string) string {
	if slices.Contains(args, ".") {
		return "git " + sub + " . discards every local change"
	}
	if sub == "checkout" && (slices.Contains(args, "-f") || slices.Contains(args, "--force")) {
		return "git checkout -f discards local changes"
	}
	return ""
}

// gitBranchRisk: -D (or --delete with --force) deletes a branch that is not
// merged; -d alone refuses to.
func gitBranchRisk(_ string, args []string) string {
	del, force := false, false
	for _, a := range args {
		switch {
		case a == "--delete":
			del = true
		case a == "--force":
			force = true
		case strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--"):
			if strings.Contains(a, "D") {
				return "git branch -D deletes an unmerged branch"
			}
			del = del || strings.Contains(a, "d")
			force = force || strings.Contains(a, "f")
		}
	}
	if del && force {
		return "git branch -D deletes an unmerged branch"
	}
	return ""
}

func gitStashRisk(_ string, args []string) string {
	if len(args) > 0 && (args[0] == "drop" || args[0] == "clear") {
		return "git stash " + args[0] + " throws away stashed work"
	}
	return ""
}
