package loop

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/hook-loop/hook-loop/internal/shell"
)

// ToolCheck is the outcome of the built-in tool policy for one call.
type ToolCheck struct {
	Blocked bool
	Reason  string
	Rule    string // risky_command, protected_path, loop_file, state_policy
}

// LoopFiles are the files the agent must not change, given the project root and
// the DSL/log in use: the loop's own definition and state, and the harness hook
// configs that call hook-loop.
func LoopFiles(root, configPath, logPath string, owned []string) []string {
	files := []string{}
	add := func(p string) {
		if p == "" {
			return
		}
		dir := strings.HasSuffix(p, string(filepath.Separator))
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
	if logPath != "" {
		add(filepath.Dir(logPath) + string(filepath.Separator))
	}
	if root != "" {
		add(filepath.Join(root, "hook-loop.json"))
		add(filepath.Join(root, ".hook-loop") + string(filepath.Separator))
	}
	for _, p := range owned {
		if filepath.IsAbs(p) || root != "" {
			add(p)
		}
	}
	if root != "" && owned == nil {
		add(filepath.Join(root, ".codex", "hooks.json"))
		add(filepath.Join(root, ".codex", "config.toml"))
		add(filepath.Join(root, ".claude", "settings.json"))
		add(filepath.Join(root, ".claude", "settings.local.json"))
		add(filepath.Join(root, ".opencode", "plugins", "hook_loop.js"))
		add(filepath.Join(root, ".pi", "extensions", "hook_loop.ts"))
	}
	return files
}

// CheckTool applies the built-in guardrails and the state's policy to a tool
// request. cwd resolves relative paths found in shell commands.
func (e *Engine) CheckTool(ev *HookEvent, state string) ToolCheck {
	calls := parseCommand(ev)
	return e.checkTool(ev, calls, e.writeTargets(ev, calls), state)
}

// parseCommand parses a Bash call's command once per event: the risky-command
// check and the write targets both read it.
func parseCommand(ev *HookEvent) []shell.Call {
	if ev.Command == "" {
		return nil
	}
	return shell.Parse(ev.Command)
}

func (e *Engine) checkTool(ev *HookEvent, calls []shell.Call, targets []string, state string) ToolCheck {
	d := e.Spec.Definition
	g := d.Guardrails
	if g.RiskyCommands {
		for _, c := range calls {
			if why := riskyCall(c); why != "" {
				return ToolCheck{Blocked: true, Rule: "risky_command",
					Reason: fmt.Sprintf("hook-loop blocked a risky command (%s). Find a safer way, or ask the person to run it.", why)}
			}
		}
		if dropSQL().MatchString(ev.Command) {
			return ToolCheck{Blocked: true, Rule: "risky_command",
				Reason: "hook-loop blocked a risky command (it drops a database object). Ask the person to run it."}
		}
	}
	if g.ProtectLoopFiles && len(targets) > 0 {
		loopFiles := e.loopFiles()
		for _, t := range targets {
			if f := underAny(t, loopFiles); f != "" {
				return ToolCheck{Blocked: true, Rule: "loop_file",
					Reason: fmt.Sprintf("hook-loop blocked a change to %s: the loop's own files (its definition, log and hook configuration) are not the agent's to edit. Work on the task instead.", e.display(t))}
			}
		}
	}
	for _, t := range targets {
		for _, pat := range g.ProtectedPaths {
			if protectedMatch(t, pat, e.Root) {
				return ToolCheck{Blocked: true, Rule: "protected_path",
					Reason: fmt.Sprintf("hook-loop blocked a write to %s: paths matching %q are protected by this loop.", e.display(t), pat)}
			}
		}
	}
	if pol, ok := d.Policies[state]; ok {
		if why := pol.refuses(ev, targets, e.Root); why != "" {
			reason := pol.Reason
			if reason == "" {
				reason = fmt.Sprintf("hook-loop: %s while the loop is in state %q.", why, state)
			}
			if ins := d.Instructions[state]; ins != "" && pol.Reason == "" {
				reason += " " + ins
			}
			return ToolCheck{Blocked: true, Rule: "state_policy", Reason: reason}
		}
	}
	return ToolCheck{}
}

// dropSQL is compiled on first use: only tool requests need it, and every hook
// process would otherwise pay for it at start-up.
var dropSQL = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\bdrop\s+(table|database|schema)\b`)
})

func (p StatePolicy) refuses(ev *HookEvent, targets []string, root string) string {
	tool := ev.ToolName
	denied := slices.Contains(p.DenyTools, tool) ||
		(len(p.AllowTools) > 0 && !slices.Contains(p.AllowTools, tool))
	if denied && p.AllowPathMatch != nil && len(targets) > 0 {
		all := true
		for _, t := range targets {
			ok := false
			for _, form := range pathForms(t, root) {
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

// riskyCall names why a simple command is risky, or returns "".
func riskyCall(c shell.Call) string {
	if len(c.Args) == 0 {
		return ""
	}
	raw := c.Args
	if b := filepath.Base(raw[0]); b == "sudo" || b == "doas" {
		return b + " runs a command as another user"
	}
	args := shell.Unwrap(raw)
	if len(args) == 0 {
		return ""
	}
	name := filepath.Base(args[0])
	rest := args[1:]
	switch name {
	case "rm":
		recursive := false
		var targets []string
		endOpts := false
		for _, a := range rest {
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
	case "git":
		sub, subArgs := gitSub(rest)
		switch sub {
		case "push":
			for _, a := range subArgs {
				if a == "--force" || a == "-f" || strings.HasPrefix(a, "--force-with-lease") || a == "--mirror" || a == "--delete" || (strings.HasPrefix(a, "+") && len(a) > 1) {
					return "git push " + a + " rewrites the remote"
				}
			}
		case "reset":
			if slices.Contains(subArgs, "--hard") || slices.Contains(subArgs, "--merge") || slices.Contains(subArgs, "--keep") {
				return "git reset --hard throws away work"
			}
		case "clean":
			for _, a := range subArgs {
				if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "f") || a == "--force" {
					return "git clean -f deletes untracked files"
				}
			}
		case "checkout", "restore":
			if slices.Contains(subArgs, ".") {
				return "git " + sub + " . discards every local change"
			}
		case "branch":
			if slices.Contains(subArgs, "-D") {
				return "git branch -D deletes an unmerged branch"
			}
		}
	case "mkfs", "mkfs.ext4", "mkfs.xfs", "fdisk", "parted", "shutdown", "reboot", "halt", "poweroff":
		return name + " changes the machine, not the project"
	case "dd":
		for _, a := range rest {
			if strings.HasPrefix(a, "of=/dev/") {
				return "dd writes to a device"
			}
		}
	case "chmod", "chown":
		if (slices.Contains(rest, "-R") || slices.Contains(rest, "--recursive")) && slices.ContainsFunc(rest, func(a string) bool { return a == "/" || a == "~" }) {
			return name + " -R on / or ~"
		}
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

// writingCommands take file operands that they create, change or delete.
var writingCommands = map[string]bool{
	"rm": true, "mv": true, "cp": true, "tee": true, "truncate": true, "touch": true,
	"sed": true, "perl": true, "chmod": true, "chown": true, "ln": true, "install": true,
	"rmdir": true, "shred": true, "unlink": true,
}

// writeTargets are the absolute paths a call would write: the adapter's
// TargetPaths, plus redirections and operands of writing commands in Bash.
func (e *Engine) writeTargets(ev *HookEvent, calls []shell.Call) []string {
	var out []string
	cwd := ev.Cwd
	if cwd == "" {
		cwd = e.Root
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
	for _, p := range ev.TargetPaths {
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

func (e *Engine) loopFiles() []string {
	return LoopFiles(e.Root, e.ConfigPath, e.LogPath, e.OwnedPaths)
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
	for _, form := range pathForms(p, root) {
		if ok, _ := filepath.Match(pattern, form); ok {
			return true
		}
		if ok, _ := filepath.Match(pattern, filepath.Base(form)); ok {
			return true
		}
	}
	return false
}

func (e *Engine) display(p string) string {
	if e.Root != "" {
		if rel, err := filepath.Rel(e.Root, p); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return p
}
