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

	"github.com/hook-loop/hook-loop/loop"
	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/guard/shell"
)

// Check is the outcome of the built-in tool policy for one call.
type Check struct {
	Blocked bool
	Reason  string
	Rule    string // risky_command, hook_loop_command, loop_lock, loop_file, uncertain_write, unseen_input, too_many_paths, protected_path, state_policy
	// Note is said to the agent when the call is allowed.
	Note string
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
	// SecretPaths are refused to readers too (the log's keys, pinned loops):
	// absolute, a trailing "/" meaning the folder and everything under it.
	SecretPaths []string
	// Home and Vars are the environment a command runs in ($HOME, $PWD,
	// $CODEX_HOME, ...): the shell analysis expands ~ and variables with them.
	Home string
	Vars map[string]string
	// Self returns the path of the running hook-loop binary: a command that
	// runs it by that path runs hook-loop (see SelfCommand). It is asked only
	// for a command named by a path (finding the binary costs a readlink and
	// an lstat per directory); nil or "" means unknown.
	Self func() string
	// folds replaces the disk probe of whether a path's filesystem ignores
	// case (foldsCase), for tests on disks that do not.
	folds func(string) bool
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

// Call is one tool request as the guard reads it.
type Call struct {
	// Calls are the simple commands of a Bash call (the risky-command table
	// and SelfCommand read them).
	Calls []shell.Call
	// Analysis is what the call writes as the shell would run it, the
	// adapter's decoded paths (file_path, patch headers, MCP path arguments)
	// included as writes of the tool.
	Analysis shell.Analysis
	// Targets are the absolute paths of Analysis.Writes, each once: path_match
	// rules, protected_paths and the state's policy judge this list.
	Targets []string
	// env is the shell environment the call runs in; res resolves paths in
	// it, sharing what it learns across the call's checks.
	env shell.Env
	res *shell.Resolver
	// unseen is the event's Unseen: what the call opens that no hook shows.
	unseen string
	// alt is the call read in the other reading of its own directory, nil
	// when it has one reading (Read).
	alt *Call
	// paths is how many paths the call's input names, when more than
	// maxCallPaths: none is then resolved, and Check refuses the call.
	paths int
	// transcript is the session's transcript as the harness names it: the
	// adapters read a call's exit code, workdir and terminal from Codex's,
	// and the last message from Copilot's, so it is no more the agent's to
	// change, move or replace than the log.
	transcript string
}

// resolver is c's, or a new one for a Call not made by Read.
func (c Call) resolver() *shell.Resolver {
	if c.res == nil {
		return shell.NewResolver(c.env)
	}
	return c.res
}

// env is the shell environment a tool call of ev runs in. When the call
// names its own directory, physical says which reading of it: false, the
// name cleaned lexically (where Gemini CLI's path.resolve changes to),
// true, as the system's chdir reads it, each link followed before the ".."
// after it (where Qwen Code, which passes it unresolved to spawn, and Codex
// run).
func (p *Policy) env(ev *loop.HookEvent, physical bool) shell.Env {
	dir := ev.Cwd
	if dir == "" || !filepath.IsAbs(dir) {
		dir = p.Root
	}
	if ev.CommandDir != "" {
		// The call's own directory, relative ones as the harness resolves
		// them: against the directory it runs in.
		raw := ev.CommandDir
		if home := tildeHome(raw, p.Home); physical && home != "" {
			// A leading ~ is the agent's home where the server expands it,
			// a folder "~" where it does not: the second reading.
			raw = home
		}
		if !filepath.IsAbs(raw) {
			raw = strings.TrimSuffix(dir, string(filepath.Separator)) + string(filepath.Separator) + raw
		}
		dir = filepath.Clean(raw)
		if physical {
			if real, err := filepath.EvalSymlinks(raw); err == nil {
				dir = real
			}
		}
	}
	vars := make(map[string]string, len(p.Vars)+1)
	for k, v := range p.Vars {
		vars[k] = v
	}
	vars["PWD"] = dir
	return shell.Env{Dir: dir, Root: p.Root, Home: p.Home, Vars: vars}
}

// Read reads what the tool request ev does: its command parsed and analysed,
// and the paths the adapter decoded resolved the way the analysis resolves
// its targets (symlinks on existing prefixes followed). A directory of the
// call's own that names ".." after a link has two readings (env); where
// they differ the call is read in both, and Check refuses what either
// reading would.
func (p *Policy) Read(ev *loop.HookEvent) Call {
	c := p.read(ev, p.env(ev, false))
	if hasDotDot(ev.CommandDir) || tildeHome(ev.CommandDir, p.Home) != "" {
		if env := p.env(ev, true); env.Dir != c.env.Dir {
			alt := p.read(ev, env)
			c.alt = &alt
			c.Targets = append(c.Targets, alt.Targets...)
			slices.Sort(c.Targets)
			c.Targets = slices.Compact(c.Targets)
		}
	}
	return c
}

// tildeHome is dir with a leading ~ (alone or before a separator) made
// home; "" when dir has none or there is no home.
func tildeHome(dir, home string) string {
	if home == "" || (dir != "~" && !strings.HasPrefix(dir, "~/")) {
		return ""
	}
	return filepath.Join(home, dir[1:])
}

// hasDotDot says path p names "..".
func hasDotDot(p string) bool {
	for _, e := range strings.Split(filepath.ToSlash(p), "/") {
		if e == ".." {
			return true
		}
	}
	return false
}

// maxCallPaths bounds the paths one tool call's input may name: each costs
// an lstat per existing prefix, and the 700,000 one-letter paths 8 MiB of
// input holds took longer than the harness waits for the hook, which then
// lets the call run. No real call comes near it.
const maxCallPaths = 4096

func (p *Policy) read(ev *loop.HookEvent, env shell.Env) Call {
	c := Call{env: env, res: shell.NewResolver(env), unseen: ev.Unseen}
	if n := len(ev.TargetPaths) + len(ev.ReadPaths); n > maxCallPaths {
		c.paths = n
		return c
	}
	if filepath.IsAbs(ev.TranscriptPath) {
		c.transcript = filepath.Clean(ev.TranscriptPath)
	}
	if ev.Command != "" {
		c.Calls = shell.Parse(ev.Command)
		c.Analysis = shell.Analyze(ev.Command, env)
	}
	for _, d := range ev.TargetPaths {
		d = strings.Trim(d, `"'`)
		if d == "" || strings.HasPrefix(d, "/dev/") {
			continue
		}
		for _, r := range c.res.Resolve(d) {
			c.Analysis.Writes = append(c.Analysis.Writes, shell.Target{Path: r, Op: ev.ToolName, Word: d})
		}
	}
	for _, d := range ev.ReadPaths {
		for _, r := range c.res.Resolve(d) {
			c.Analysis.Named = append(c.Analysis.Named, shell.Name{Path: r, Prog: ev.ToolName, Word: d, Reader: true, Tree: true})
		}
	}
	seen := make(map[string]bool, len(c.Analysis.Writes))
	for _, t := range c.Analysis.Writes {
		if !seen[t.Path] {
			seen[t.Path] = true
			c.Targets = append(c.Targets, t.Path)
		}
	}
	return c
}

// Protected are the loop's own files (LoopFiles) and the session's
// transcript as the shell analysis of the call c reports paths: each
// resolved through its symlinks, a symlinked file protected both as the link
// and as its target, folders ending in "/".
func (p *Policy) Protected(c Call) []string {
	var out []string
	files := append(LoopFiles(p.Root, p.ConfigPath, p.LogPath, p.OwnedPaths), p.binaries()...)
	if c.transcript != "" {
		files = append(files, c.transcript)
	}
	for _, f := range files {
		folder := strings.HasSuffix(f, string(filepath.Separator))
		for _, r := range c.resolver().Resolve(filepath.Clean(f)) {
			if folder {
				r += string(filepath.Separator)
			}
			if !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
	}
	return out
}

// Check applies the built-in guardrails and the state's policy to the tool
// request ev, read by Read. A check that allows may carry a Note for the
// agent (an analysis that could not see every target).
func (p *Policy) Check(ev *loop.HookEvent, c Call, state string) Check {
	if c.paths > 0 {
		return Check{Blocked: true, Rule: "too_many_paths",
			Reason: fmt.Sprintf("hook-loop blocked a tool call naming %d paths: it judges at most %d in one call. Split the work into smaller calls.", c.paths, maxCallPaths)}
	}
	d := p.Def
	g := d.Guardrails
	if g.RiskyCommands {
		for _, sc := range c.Calls {
			if why := RiskyCall(sc); why != "" {
				return Check{Blocked: true, Rule: "risky_command",
					Reason: fmt.Sprintf("hook-loop blocked a risky command (%s). Find a safer way, or ask the person to run it.", why)}
			}
		}
		if why := killByLookup(c.Calls); why != "" {
			return Check{Blocked: true, Rule: "risky_command",
				Reason: fmt.Sprintf("hook-loop blocked a risky command (%s). Ask the person to run it.", why)}
		}
		if dropsSQL(ev.Command) {
			return Check{Blocked: true, Rule: "risky_command",
				Reason: "hook-loop blocked a risky command (it drops a database object). Ask the person to run it."}
		}
	}
	var note string
	if g.ProtectLoopFiles {
		chk := p.checkLoopFiles(c)
		if chk.Blocked {
			return chk
		}
		note = chk.Note
		// The other reading of the call's own directory: only what it
		// writes and names differs (its targets are in c.Targets already,
		// its commands are c's).
		if c.alt != nil {
			if alt := p.checkLoopFiles(*c.alt); alt.Blocked {
				return alt
			}
		}
	}
	for _, t := range c.Targets {
		for _, pat := range g.ProtectedPaths {
			if protectedMatch(t, pat, p.Root) {
				return Check{Blocked: true, Rule: "protected_path",
					Reason: fmt.Sprintf("hook-loop blocked a write to %s: paths matching %q are protected by this loop.", p.display(t), pat)}
			}
		}
	}
	if pol, ok := d.Policies[state]; ok {
		if why := refuses(pol, ev, c.Targets, p.Root); why != "" {
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
	return Check{Note: note}
}

// checkLoopFiles refuses a call that runs hook-loop's writing commands, takes
// its locks, writes its files (by a write, a folder move or a tree write) or
// hands an interpreter code naming them. An analysis that could not see every
// target is refused under fail_closed and allowed with a note otherwise.
func (p *Policy) checkLoopFiles(c Call) Check {
	if sub, ok := p.SelfCommand(c); ok {
		return Check{Blocked: true, Rule: "hook_loop_command",
			Reason: fmt.Sprintf("hook-loop blocked `hook-loop %s`: hook-loop's writing commands are the person's to run, not the agent's (read-only ones such as status, log, validate and doctor stay allowed). Ask the person if the loop needs changing.", sub)}
	}
	if c.unseen != "" {
		return Check{Blocked: true, Rule: "unseen_input",
			Reason: fmt.Sprintf("hook-loop blocked this call: %s, and no hook shows hook-loop what it runs, so nothing would keep it off the loop's own files. Run it as a plain shell command (no terminal, the default shell, a command of ordinary length), giving it its input in the command itself.", c.unseen)}
	}
	an := c.Analysis
	if len(an.Writes) == 0 && len(an.Inline) == 0 && len(an.Uncertain) == 0 && len(an.Named) == 0 && !takesLock(c) {
		// Nothing written or named, no inline code, no lock taken: no
		// protected file can be touched, and resolving every protected path
		// (symlinks and all) is the costliest part of a tool check.
		return Check{}
	}
	secrets := p.secrets(c)
	if f, ok := p.writesSecret(c, secrets); ok {
		return Check{Blocked: true, Rule: "loop_file",
			Reason: fmt.Sprintf("hook-loop blocked a change to %s: the event log's keys and the pinned loops are hook-loop's alone, not the agent's to read or write. Work on the task instead.", f)}
	}
	if f, ok := p.readsSecret(c, secrets); ok {
		return Check{Blocked: true, Rule: "loop_file",
			Reason: fmt.Sprintf("hook-loop blocked reading %s: the event log's keys and the pinned loops are hook-loop's alone, not the agent's to read or write. Work on the task instead.", f)}
	}
	if w, ok := p.unknownSecretName(an.Named); ok {
		an.Uncertain = append(slices.Clip(an.Uncertain), "a word made as the command runs may name hook-loop's keys: "+w)
	}
	if len(an.Writes) == 0 && len(an.Inline) == 0 && len(an.Uncertain) == 0 && !takesLock(c) &&
		!slices.ContainsFunc(an.Named, func(n shell.Name) bool { return !n.Reader }) {
		return Check{} // only readers: nothing but the secrets is theirs to miss
	}
	protected := p.Protected(c)
	if f, ok := locksOwnFiles(c, protected); ok {
		return Check{Blocked: true, Rule: "loop_lock",
			Reason: fmt.Sprintf("hook-loop blocked a lock on %s: hook-loop's own locks are not the agent's to take (a held lock would stall every hook). Work on the task instead.", p.display(f))}
	}
	lk := newLinks(protected)
	if n, f, ok := namesProtected(an.Named, protected, lk); ok {
		return Check{Blocked: true, Rule: "loop_file",
			Reason: fmt.Sprintf("hook-loop blocked a change to %s: the loop's own files (its definition, log, state and hook configuration) are not the agent's to edit, and `%s` is not a program that only reads them (cat, grep, jq, git diff, hook-loop status, ...). Work on the task instead.", p.display(strings.TrimSuffix(f, string(filepath.Separator))), n.Prog)}
	}
	hit := ""
	if t, f, ok := an.Hit(protected); ok {
		hit = t.Path
		if strings.HasPrefix(f, t.Path+string(filepath.Separator)) || t.Path == string(filepath.Separator) {
			hit = f // a folder move or tree write: name the loop file it takes along
			if hint := gitTreeHint(t.Op); hint != "" {
				// The agent meant its own files: say how to name them.
				where := "every file under " + p.display(t.Path)
				if p.display(t.Path) == "." {
					where = "the whole work tree"
				}
				return Check{Blocked: true, Rule: "loop_file",
					Reason: fmt.Sprintf("hook-loop blocked `%s`: it rewrites %s, %s included, and the loop's own files (its definition, log and hook configuration) are not the agent's to edit. %s", t.Op, where, p.display(strings.TrimSuffix(f, string(filepath.Separator))), hint)}
			}
		}
	}
	for _, t := range an.Writes {
		if hit == "" {
			hit = lk.of(t.Path)
		}
	}
	// A spelling in other cases is the same file where the filesystem
	// ignores case: HOOK-LOOP.JSON is hook-loop.json on macOS.
	for _, t := range an.Writes {
		if hit == "" {
			hit = p.foldedUnder(t.Path, protected)
		}
	}
	for _, n := range an.Named {
		if hit == "" && !n.Reader {
			hit = p.foldedUnder(n.Path, protected)
		}
	}
	for _, in := range an.Inline {
		if hit == "" {
			hit, _ = shell.NamesPath(in, protected)
		}
	}
	if hit != "" {
		return Check{Blocked: true, Rule: "loop_file",
			Reason: fmt.Sprintf("hook-loop blocked a change to %s: the loop's own files (its definition, log and hook configuration) are not the agent's to edit. Work on the task instead.", p.display(strings.TrimSuffix(hit, string(filepath.Separator))))}
	}
	if len(an.Uncertain) > 0 {
		why := strings.Join(an.Uncertain, "; ")
		if p.Def.FailClosed {
			return Check{Blocked: true, Rule: "uncertain_write",
				Reason: fmt.Sprintf("hook-loop blocked a command whose write targets it cannot know before it runs (%s), and this loop is fail_closed: it could touch the loop's own files. Spell the paths out literally, or ask the person to run it.", why)}
		}
		return Check{Note: fmt.Sprintf("hook-loop could not tell every file this command writes (%s). The loop's own files (hook-loop.json, .hook-loop/, the hook configuration) are not the agent's to change.", why)}
	}
	return Check{}
}

// gitTreeHint is what to run instead of a git command that rewrites a
// whole tree: the same with the files named. (The guard does not run git to
// see which files are dirty: the repository's config is the agent's, and
// settings such as core.fsmonitor run programs.)
func gitTreeHint(op string) string {
	files := "Name the files instead: "
	switch op {
	case "git stash", "git stash -u":
		return files + "`git stash push -- FILE...`."
	case "git reset --hard", "git checkout -f", "git checkout", "git restore", "git checkout-index -a", "git read-tree -u":
		return files + "`git checkout -- FILE...` or `git restore FILE...`."
	case "git stash pop", "git stash apply", "git stash branch":
		return "It restores whatever files the stash holds; take named ones from it instead: `git restore --source=stash@{0} FILE...`."
	case "git switch -f":
		return files + "`git stash push -- FILE...` or `git restore FILE...`, then `git switch` without -f."
	case "git clean":
		return files + "`git clean -f -- FILE...`."
	case "git rm":
		return files + "`git rm -- FILE...`."
	}
	return ""
}

// dropSQL is compiled on first use: only tool requests need it, and every hook
// process would otherwise pay for it at start-up.
var dropSQL = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\bdrop\s+(table|database|schema)\b`)
})

// dropsSQL reports whether command matches dropSQL. A match holds "drop" in
// some mix of cases, and no other character folds to d, r, o or p, so a
// command without it is answered without compiling the expression (most
// commands, and most hook processes).
func dropsSQL(command string) bool {
	return containsFoldASCII(command, "drop") && dropSQL().MatchString(command)
}

// containsFoldASCII reports whether s contains lower (lower-case ASCII) with
// any of its letters in upper case.
func containsFoldASCII(s, lower string) bool {
	for i := 0; i+len(lower) <= len(s); i++ {
		j := 0
		for ; j < len(lower); j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != lower[j] {
				break
			}
		}
		if j == len(lower) {
			return true
		}
	}
	return false
}

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
