// Package guard is the built-in tool policy of a loop: which tool calls hook-loop
// refuses before they run. It judges one call at a time from what the call
// writes (its target paths) and runs (its parsed shell command): risky commands,
// the loop's own files, protected paths and the state's tool policy. It keeps no
// state; the engine decides when to ask.
package guard

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/hook-loop/hook-loop/internal/shell"
	"github.com/hook-loop/hook-loop/loop"
	"github.com/hook-loop/hook-loop/loop/dsl"
)

// Check is the outcome of the built-in tool policy for one call.
type Check struct {
	Blocked bool
	Reason  string
	Rule    string // risky_command, protected_path, loop_file, state_policy
}

// Policy is one loop's tool policy in one project.
type Policy struct {
	Def *dsl.Definition
	// Root is the project root: relative paths are judged against it.
	Root string
	// ConfigPath, LogPath and OwnedPaths name the files the agent must not
	// change (see LoopFiles).
	ConfigPath, LogPath string
	OwnedPaths          []string
}

// LoopFiles are the files the agent must not change, given the project root, the
// DSL and log in use, and owned: more paths (the harnesses' hook configs, which
// call hook-loop), absolute or relative to root, a trailing "/" meaning the
// folder and everything under it.
func LoopFiles(root, configPath, logPath string, owned []string) []string {
	files := []string{}
	add := func(p string) {
		if p == "" {
			return
		}
		dir := strings.HasSuffix(p, "/") || strings.HasSuffix(p, string(filepath.Separator))
		if !filepath.IsAbs(p) && root != "" {
			p = filepath.Join(root, p)
		}
		p = filepath.Clean(p)
		if dir {
			// Clean drops the trailing separator that marks a protected directory.
			p += string(filepath.Separator)
		}
		files = append(files, p)
	}
	add(configPath)
	for _, p := range logFiles(logPath) {
		add(p)
	}
	if root != "" {
		add(filepath.Join(root, "hook-loop.json"))
		add(filepath.Join(root, ".hook-loop") + string(filepath.Separator))
		for _, p := range owned {
			add(p)
		}
	}
	return files
}

// logFiles is what of the event log the agent must not change: the log's
// whole folder when that folder is hook-loop's own (.hook-loop/, or one named
// hook-loop), else only the log and the files the event log keeps beside it
// (eventlog's index, its lock, and the index being rewritten), so that a log
// at the project root does not make every project file the loop's.
func logFiles(logPath string) []string {
	if logPath == "" {
		return nil
	}
	switch filepath.Base(filepath.Dir(filepath.Clean(logPath))) {
	case ".hook-loop", "hook-loop":
		return []string{filepath.Dir(logPath) + string(filepath.Separator)}
	}
	return []string{logPath, logPath + ".idx", logPath + ".lock", logPath + ".idx.tmp"}
}

// ParseCommand parses a Bash call's command, once per event: the risky-command
// check and the write targets both read it.
func ParseCommand(command string) []shell.Call {
	if command == "" {
		return nil
	}
	return shell.Parse(command)
}

// Check applies the built-in guardrails and the state's policy to a tool request
// whose parsed command is calls and whose write targets are targets.
func (p *Policy) Check(ev *loop.HookEvent, calls []shell.Call, targets []string, state string) Check {
	d := p.Def
	g := d.Guardrails
	if g.RiskyCommands {
		for _, c := range calls {
			if why := RiskyCall(c); why != "" {
				return Check{Blocked: true, Rule: "risky_command",
					Reason: fmt.Sprintf("hook-loop blocked a risky command (%s). Find a safer way, or ask the person to run it.", why)}
			}
		}
		if dropSQL().MatchString(ev.Command) {
			return Check{Blocked: true, Rule: "risky_command",
				Reason: "hook-loop blocked a risky command (it drops a database object). Ask the person to run it."}
		}
	}
	if g.ProtectLoopFiles && len(targets) > 0 {
		loopFiles := LoopFiles(p.Root, p.ConfigPath, p.LogPath, p.OwnedPaths)
		for _, t := range targets {
			if f := underAny(t, loopFiles); f != "" {
				return Check{Blocked: true, Rule: "loop_file",
					Reason: fmt.Sprintf("hook-loop blocked a change to %s: the loop's own files (its definition, log and hook configuration) are not the agent's to edit. Work on the task instead.", p.display(t))}
			}
		}
	}
	for _, t := range targets {
		for _, pat := range g.ProtectedPaths {
			if protectedMatch(t, pat, p.Root) {
				return Check{Blocked: true, Rule: "protected_path",
					Reason: fmt.Sprintf("hook-loop blocked a write to %s: paths matching %q are protected by this loop.", p.display(t), pat)}
			}
		}
	}
	if pol, ok := d.Policies[state]; ok {
		if why := refuses(pol, ev, targets, p.Root); why != "" {
			reason := pol.Reason
			if reason == "" {
				reason = fmt.Sprintf("hook-loop: %s while the loop is in state %q.", why, state)
			}
			if ins := d.Instructions[state]; ins != "" && pol.Reason == "" {
				reason += " " + ins
			}
			return Check{Blocked: true, Rule: "state_policy", Reason: reason}
		}
	}
	return Check{}
}

// dropSQL is compiled on first use: only tool requests need it, and every hook
// process would otherwise pay for it at start-up.
var dropSQL = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\bdrop\s+(table|database|schema)\b`)
})

// refuses says why the state's policy refuses the call, or "".
func refuses(p dsl.StatePolicy, ev *loop.HookEvent, targets []string, root string) string {
	tool := ev.ToolName
	denied := slices.Contains(p.DenyTools, tool) ||
		(len(p.AllowTools) > 0 && !slices.Contains(p.AllowTools, tool))
	if denied && p.AllowPathMatch != nil && len(targets) > 0 {
		all := true
		for _, t := range targets {
			ok := false
			for _, form := range dsl.PathForms(t, root) {
				if p.AllowPathMatch.MatchString(form) {
					ok = true
				}
			}
			all = all && ok
		}
		if all {
			denied = false
		}
	}
	if denied {
		return fmt.Sprintf("the %s tool is not allowed", tool)
	}
	if p.DenyCommandMatch != nil && ev.Command != "" && p.DenyCommandMatch.MatchString(ev.Command) {
		return "this command is not allowed"
	}
	return ""
}

// writingCommands take file operands that they create, change or delete.
var writingCommands = map[string]bool{
	"rm": true, "mv": true, "cp": true, "tee": true, "truncate": true, "touch": true,
	"sed": true, "perl": true, "chmod": true, "chown": true, "ln": true, "install": true,
	"rmdir": true, "shred": true, "unlink": true,
}

// WriteTargets are the absolute paths a call writes: decoded, the paths the
// adapter read from the call (file_path, patch headers), plus the redirections
// and operands of writing commands in calls. Relative paths resolve against the
// event's Cwd, else root.
func WriteTargets(ev *loop.HookEvent, decoded []string, calls []shell.Call, root string) []string {
	var out []string
	cwd := ev.Cwd
	if cwd == "" {
		cwd = root
	}
	abs := func(p string) string {
		p = strings.Trim(p, `"'`)
		if p == "" || strings.HasPrefix(p, "-") || p == "/dev/null" || strings.HasPrefix(p, "/dev/") {
			return ""
		}
		if strings.HasPrefix(p, "~") || strings.HasPrefix(p, "$") {
			return p
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		return filepath.Clean(p)
	}
	for _, p := range decoded {
		if a := abs(p); a != "" {
			out = append(out, a)
		}
	}
	for _, c := range calls {
		for _, w := range c.Writes {
			if a := abs(w); a != "" {
				out = append(out, a)
			}
		}
		args := shell.Unwrap(c.Args)
		if len(args) == 0 || !writingCommands[filepath.Base(args[0])] {
			continue
		}
		name := filepath.Base(args[0])
		if (name == "sed" || name == "perl") && !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "-i") }) {
			continue
		}
		for _, a := range args[1:] {
			if x := abs(a); x != "" {
				out = append(out, x)
			}
		}
	}
	// The adapter may already name a path the command also writes.
	seen := make(map[string]bool, len(out))
	uniq := out[:0]
	for _, p := range out {
		if !seen[p] {
			seen[p] = true
			uniq = append(uniq, p)
		}
	}
	return uniq
}

// underAny returns the protected entry that p is (a file) or lies under (an entry
// ending in a separator is a directory).
func underAny(p string, protected []string) string {
	for _, f := range protected {
		if strings.HasSuffix(f, string(filepath.Separator)) {
			dir := strings.TrimSuffix(f, string(filepath.Separator))
			if p == dir || strings.HasPrefix(p, f) {
				return f
			}
			continue
		}
		if p == f {
			return f
		}
	}
	return ""
}

// protectedMatch: a pattern ending in "/" names a directory anywhere in the path
// (".git/" protects every .git directory, and nothing that merely mentions .git);
// other patterns are globs against the root-relative path or the base name.
func protectedMatch(p, pattern, root string) bool {
	if strings.HasSuffix(pattern, "/") {
		dir := strings.TrimSuffix(pattern, "/")
		for _, part := range strings.Split(filepath.ToSlash(p), "/") {
			if part == dir {
				return true
			}
		}
		return false
	}
	for _, form := range dsl.PathForms(p, root) {
		if ok, _ := filepath.Match(pattern, form); ok {
			return true
		}
		if ok, _ := filepath.Match(pattern, filepath.Base(form)); ok {
			return true
		}
	}
	return false
}

func (p *Policy) display(path string) string {
	if p.Root != "" {
		if rel, err := filepath.Rel(p.Root, path); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return path
}
