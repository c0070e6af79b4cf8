package shell

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Caps on the work one command line may cause (see the package comment above
// Analyze): past any of them the result is marked Uncertain.
const (
	maxFields      = 256   // fields one word may expand to (braces, globs)
	maxGlobReads   = 512   // directory reads for globbing per command line
	maxFindEntries = 10000 // entries find walks visit per command line
	maxSteps       = 10000 // statements analysed per command line
	maxLinkHops    = 40    // symlinks followed per path, as Linux does
	maxNames       = 1024  // strings kept from one inline code text
	// paths written or named per command line: each costs an lstat per
	// existing prefix, and one statement of 450,000 redirects took longer
	// than the harness waits for the hook.
	maxPaths = 10000
)

// FS is the file-system access Analyze needs: listing for globs and find,
// Lstat and Readlink for symlinks. OSFS is the real one.
type FS interface {
	ReadDir(name string) ([]fs.DirEntry, error)
	Lstat(name string) (fs.FileInfo, error)
	Readlink(name string) (string, error)
}

// OSFS is the real file system.
type OSFS struct{}

func (OSFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }
func (OSFS) Lstat(name string) (fs.FileInfo, error)     { return os.Lstat(name) }
func (OSFS) Readlink(name string) (string, error)       { return os.Readlink(name) }

// Env is where a command line starts.
type Env struct {
	Dir  string            // absolute working directory the command starts in
	Root string            // project root; git's worktree when no .git is found above Dir
	Home string            // home directory for ~ and $HOME (Vars["HOME"] when empty)
	Vars map[string]string // environment variables (PWD and HOME are derived when missing)
	FS   FS                // nil means OSFS
}

// Target is one path a command writes.
type Target struct {
	Path string // absolute, cleaned, symlinks on existing prefixes resolved
	Op   string // what writes it: "rm", "sed -i", "redirect", "git stash -u", ...
	Word string // the word as written in the command
	// Tree means anything under Path may be written (find roots without a
	// name filter, git stash/clean/checkout -f, rsync destinations).
	Tree bool
}

// Inline is code handed to an interpreter on its command line or in a heredoc.
type Inline struct {
	Lang  string   // python, node, perl, ruby, php, awk, sh
	Code  string   // the code text
	Dir   string   // working directory the interpreter starts in
	Names []string // string literals and path-like tokens in Code
}

// Analysis is what a command line writes.
type Analysis struct {
	Writes    []Target
	Inline    []Inline
	Uncertain []string // why some target could not be known statically
	// Named are the words every program is handed that could be paths,
	// whatever the program does with them.
	Named []Name
}

// Analyze reports the files command writes when run from env.
func Analyze(command string, env Env) Analysis {
	a := newAnalyzer(env)
	st := &state{dir: a.env.Dir, vars: &scope{}}
	a.script(command, st, 0)
	return a.out
}

type analyzer struct {
	env         Env
	out         Analysis
	steps       int
	globReads   int
	findEntries int
	paths       int // paths written or named so far (maxPaths)
	printer     *syntax.Printer
	noGlob      bool                 // the words being expanded are a reader's
	runsEnv     bool                 // the call sets a variable that makes readers run programs
	callEnv     map[string]arg       // the call's own NAME=VALUE environment (git --config-env reads it)
	icase       bool                 // the git being read matches pathspecs without regard to case
	pipeIn      string               // literal text piped into the next statement
	dirs        map[string]string    // directory -> its symlink-resolved form
	missing     map[string]bool      // resolved directories that do not exist
	resolved    map[string][2]string // write path -> resolve's answer
	unknownVals map[string]bool      // expanded values that held an unknown expansion
	seen        map[Target]bool
	reasons     map[string]bool
}

func newAnalyzer(env Env) *analyzer {
	if env.FS == nil {
		env.FS = OSFS{}
	}
	vars := make(map[string]string, len(env.Vars)+2)
	for k, v := range env.Vars {
		vars[k] = v
	}
	if env.Home == "" {
		env.Home = vars["HOME"]
	}
	if env.Home != "" {
		vars["HOME"] = env.Home
	}
	if env.Dir == "" {
		env.Dir = env.Root
	}
	env.Dir = filepath.Clean(env.Dir)
	env.Vars = vars
	return &analyzer{env: env, seen: map[Target]bool{}, reasons: map[string]bool{}, dirs: map[string]string{}, missing: map[string]bool{}, resolved: map[string][2]string{}, unknownVals: map[string]bool{}}
}

func (a *analyzer) uncertain(why string) {
	if !a.reasons[why] {
		a.reasons[why] = true
		a.out.Uncertain = append(a.out.Uncertain, why)
	}
}

// scope holds shell variables; a subshell gets a child scope, so entering one
// costs O(1) however many variables exist.
type scope struct {
	parent *scope
	vars   map[string]string
}

func (s *scope) get(name string) (string, bool) {
	for ; s != nil; s = s.parent {
		if v, ok := s.vars[name]; ok {
			return v, true
		}
	}
	return "", false
}

func (s *scope) set(name, v string) {
	if s.vars == nil {
		s.vars = map[string]string{}
	}
	s.vars[name] = v
}

// state is the shell's state as a command line runs: working directory, the
// pushd stack and variables.
type state struct {
	dir, oldpwd string
	stack       []string
	lostDir     bool // a cd went somewhere unknown
	vars        *scope
}

// sub is a subshell's copy: changes inside do not leak out.
func (s *state) sub() *state {
	c := *s
	c.stack = slices.Clip(s.stack)
	c.vars = &scope{parent: s.vars}
	return &c
}

// script analyses src as shell. Nesting deeper than the parser handles in
// linear time, or text that does not parse, is read word by word.
func (a *analyzer) script(src string, st *state, depth int) {
	src = strings.ToValidUTF8(src, "\uFFFD")
	if nestsDeeper(src, maxParseDepth) {
		a.uncertain("nested deeper than the parser reads: words taken literally")
		a.literal(src, st, depth)
		return
	}
	f, err := parseSyntax(src)
	if err != nil {
		a.uncertain("does not parse as shell: words taken literally")
		a.literal(src, st, depth)
		return
	}
	a.stmts(f.Stmts, st, depth)
}

// literal reads the blank-split calls of the fallback parser with no
// expansion and no directory tracking.
func (a *analyzer) literal(src string, st *state, depth int) {
	for _, c := range fallback(src, depth) {
		if a.step() {
			return
		}
		for _, w := range c.Writes {
			a.write(st, w, "redirect", w, false)
		}
		args := make([]arg, len(c.Args))
		for i, w := range c.Args {
			args[i] = arg{val: w, raw: w}
		}
		a.command(args, st, "", depth)
	}
}

func (a *analyzer) step() bool {
	a.steps++
	if a.steps > maxSteps {
		a.uncertain("more statements than analysed")
		return true
	}
	return false
}

func (a *analyzer) stmts(list []*syntax.Stmt, st *state, depth int) {
	for _, s := range list {
		a.stmt(s, st, depth)
	}
}

func (a *analyzer) stmt(s *syntax.Stmt, st *state, depth int) {
	// Standard input from a heredoc, or from a literal the pipe's left side
	// prints (echo 'code' | python3).
	heredoc := a.pipeIn
	a.pipeIn = ""
	if s == nil || a.step() {
		return
	}
	for _, r := range s.Redirs {
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob, syntax.RdrInOut, syntax.DplOut:
			if r.Word == nil {
				continue
			}
			for _, f := range a.fields(r.Word, st, depth) {
				if r.Op == syntax.DplOut && (f.val == "-" || isDigits(f.val)) {
					continue // >&2 duplicates a descriptor
				}
				a.write(st, f.val, "redirect", f.raw, false)
			}
		case syntax.RdrIn:
			// What the shell opens for reading is read: refused only where it
			// is a secret.
			if r.Word != nil {
				for _, f := range a.fields(r.Word, st, depth) {
					a.name(st, f.val, "<", f.raw, true, false)
				}
			}
		case syntax.Hdoc, syntax.DashHdoc:
			if r.Hdoc != nil {
				heredoc = a.printWord(r.Hdoc)
			}
		case syntax.WordHdoc:
			if r.Word != nil {
				heredoc = a.literalWord(r.Word, st, depth)
			}
		}
	}
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		a.call(c, st, heredoc, depth)
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			a.stmt(c.X, st.sub(), depth)
			a.pipeIn = a.printed(c.X)
			a.stmt(c.Y, st.sub(), depth)
			return
		}
		a.stmt(c.X, st, depth)
		a.stmt(c.Y, st, depth)
	case *syntax.Subshell:
		a.stmts(c.Stmts, st.sub(), depth)
	case *syntax.Block:
		a.stmts(c.Stmts, st, depth)
	case *syntax.IfClause:
		for ; c != nil; c = c.Else {
			a.stmts(c.Cond, st, depth)
			a.stmts(c.Then, st, depth)
		}
	case *syntax.WhileClause:
		a.stmts(c.Cond, st, depth)
		a.stmts(c.Do, st, depth)
	case *syntax.ForClause:
		a.forClause(c, st, depth)
	case *syntax.CaseClause:
		a.substs(c.Word, st, depth)
		for _, it := range c.Items {
			a.stmts(it.Stmts, st, depth)
		}
	case *syntax.FuncDecl:
		// The body runs whenever the function is called: judge it once here.
		a.stmt(c.Body, st.sub(), depth)
	case *syntax.DeclClause:
		for _, as := range c.Args {
			a.assign(as, st, depth)
		}
	case *syntax.TimeClause:
		a.stmt(c.Stmt, st, depth)
	case *syntax.CoprocClause:
		a.stmt(c.Stmt, st.sub(), depth)
	default:
		a.substs(s.Cmd, st, depth)
	}
}

// printed is what a statement prints when that is literal text: cat of a
// heredoc, echo or printf of literal words.
func (a *analyzer) printed(s *syntax.Stmt) string {
	c, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) == 0 {
		return ""
	}
	words := wordsLit(c.Args)
	switch words[0] {
	case "cat":
		if len(words) > 1 {
			return ""
		}
		for _, r := range s.Redirs {
			if (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && r.Hdoc != nil {
				return a.printWord(r.Hdoc)
			}
			if r.Op == syntax.WordHdoc && r.Word != nil {
				return word(r.Word)
			}
		}
	case "echo", "printf":
		args := words[1:]
		for len(args) > 0 && (args[0] == "-e" || args[0] == "-n" || args[0] == "-E") {
			args = args[1:]
		}
		return strings.Join(args, " ")
	}
	return ""
}

// substs analyses the command substitutions inside a node that is not
// otherwise expanded ([[ $(rm x) ]], (( ... ))).
func (a *analyzer) substs(n syntax.Node, st *state, depth int) {
	if n == nil {
		return
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CmdSubst:
			a.stmts(x.Stmts, st.sub(), depth)
			return false
		case *syntax.ProcSubst:
			a.stmts(x.Stmts, st.sub(), depth)
			return false
		}
		return true
	})
}

func (a *analyzer) forClause(c *syntax.ForClause, st *state, depth int) {
	it, ok := c.Loop.(*syntax.WordIter)
	if !ok {
		a.substs(c.Loop, st, depth)
		a.stmts(c.Do, st, depth)
		return
	}
	var items []arg
	for _, w := range it.Items {
		items = append(items, a.fields(w, st, depth)...)
	}
	if len(items) == 0 {
		a.stmts(c.Do, st, depth)
		return
	}
	// Each value runs the body once; the step budget bounds nested loops.
	for _, v := range items {
		if v.unknown {
			st.vars.set(it.Name.Value, "")
			a.unknownVar(st, it.Name.Value)
		} else {
			st.vars.set(it.Name.Value, v.val)
		}
		a.stmts(c.Do, st, depth)
		if a.steps > maxSteps {
			return
		}
	}
}

// unknownVar marks a variable whose value analysis cannot know.
func (a *analyzer) unknownVar(st *state, name string) {
	st.vars.set(unknownKey+name, "1")
}

// unknownKey prefixes a marker variable: a name no shell variable can have.
const unknownKey = "\x00?"

func (a *analyzer) assign(as *syntax.Assign, st *state, depth int) {
	if as.Name == nil {
		return
	}
	if as.Value == nil {
		if as.Naked {
			return // export X keeps X's value
		}
		st.vars.set(as.Name.Value, "")
		return
	}
	v, unknown := a.wordValue(as.Value, st, depth)
	if as.Append {
		old, _ := st.vars.get(as.Name.Value)
		v = old + v
	}
	st.vars.set(as.Name.Value, v)
	a.envValue(as.Name.Value, arg{val: v, raw: a.printWord(as.Value), unknown: unknown}, st, depth)
	if unknown {
		a.unknownVar(st, as.Name.Value)
	} else {
		st.vars.set(unknownKey+as.Name.Value, "")
	}
}

func (a *analyzer) call(c *syntax.CallExpr, st *state, heredoc string, depth int) {
	if len(c.Args) == 0 {
		for _, as := range c.Assigns {
			a.assign(as, st, depth)
		}
		return
	}
	// VAR=x cmd: the value only reaches cmd's environment; cmd's own words
	// expand with the old value. The values are still judged ($(rm x)).
	saved, savedEnv, savedCall := a.noGlob, a.runsEnv, a.callEnv
	a.callEnv = nil
	for _, as := range c.Assigns {
		sub := st.sub()
		a.assign(as, sub, depth)
		if as.Name == nil {
			continue
		}
		if runsPrograms(as.Name.Value) {
			a.runsEnv = true
		}
		if a.callEnv == nil {
			a.callEnv = map[string]arg{}
		}
		v, _ := sub.vars.get(as.Name.Value)
		u, _ := sub.vars.get(unknownKey + as.Name.Value)
		a.callEnv[as.Name.Value] = arg{val: v, raw: v, unknown: u == "1"}
	}
	// A reader's globs are not expanded: their matches are never judged, and
	// reading directories on every ls or grep would cost the hot path. One
	// table (readerUse) says what a reader is, for globs and for names alike.
	lit := make([]arg, len(c.Args))
	for i, w := range c.Args {
		lit[i] = arg{val: word(w)}
	}
	a.noGlob, _ = readerUse(baseName(lit[0].val), lit[1:])
	a.noGlob = a.noGlob && !a.runsEnv
	var args []arg
	for _, w := range c.Args {
		args = append(args, a.fields(w, st, depth)...)
	}
	a.noGlob = saved
	a.command(args, st, heredoc, depth)
	a.runsEnv, a.callEnv = savedEnv, savedCall
}

// envValue judges the value of a variable whose text a program runs as a
// shell command (git's external diff, a pager, an editor, less's filter),
// however it is set: prefix, env, export, or plain assignment (it may be
// exported already).
func (a *analyzer) envValue(name string, v arg, st *state, depth int) {
	if name == "GIT_CONFIG_PARAMETERS" {
		a.uncertain("git reads settings from GIT_CONFIG_PARAMETERS: " + clip(v.raw))
		return
	}
	if !runsShell(name) {
		return
	}
	a.runValue(v, st, depth)
}

// runValue judges text git or another program runs through a shell.
func (a *analyzer) runValue(v arg, st *state, depth int) {
	if v.unknown {
		a.uncertain("a program runs text made as the command runs: " + clip(v.raw))
	}
	code := runText(v.val)
	if depth < maxNesting && strings.TrimSpace(code) != "" {
		a.script(code, st.sub(), depth+1)
	}
}

// runsShell: a variable whose value is run as a command line.
func runsShell(name string) bool {
	switch name {
	case "GIT_EXTERNAL_DIFF", "GIT_SSH_COMMAND", "GIT_SSH", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_PROXY_COMMAND",
		"VISUAL", "LESSOPEN", "LESSCLOSE":
		return true
	}
	return strings.HasSuffix(name, "PAGER") || strings.HasSuffix(name, "EDITOR") || strings.HasPrefix(name, "GIT_CONFIG_VALUE_")
}

// runsPrograms: an environment variable that makes a reader run a program
// (git's external diff and pager, less's input filter).
func runsPrograms(name string) bool {
	return strings.HasPrefix(name, "GIT_") || strings.HasSuffix(name, "PAGER") || strings.HasPrefix(name, "LESS") ||
		name == "EDITOR" || name == "VISUAL"
}

// arg is one field of a command after expansion.
type arg struct {
	val     string // expanded
	raw     string // as written
	unknown bool   // held an expansion analysis cannot know
}

func vals(args []arg) []string {
	out := make([]string, len(args))
	for i, x := range args {
		out[i] = x.val
	}
	return out
}

// fields expands one word into the fields the shell would pass.
func (a *analyzer) fields(w *syntax.Word, st *state, depth int) []arg {
	raw := a.printWord(w)
	unknown := false
	cfg := a.config(st, depth, &unknown)
	var out []arg
	for f, err := range expand.FieldsSeq(cfg, w) {
		if err != nil {
			unknown = true
			break
		}
		if len(out) == maxFields {
			a.uncertain("a word expands to more than the analysed fields: " + clip(raw))
			break
		}
		out = append(out, arg{val: f, raw: raw})
	}
	// Fields count as work too, so loops over expansions stay bounded.
	a.steps += len(out)
	if unknown {
		if len(out) == 0 {
			// A glob past the cap stands for everything under its fixed
			// prefix (/*/*/* for /).
			out = append(out, arg{val: GlobPrefix(literalText(w)), raw: raw})
		}
		for i := range out {
			out[i].unknown = true
		}
	}
	if a.unknownParams(w, st) {
		for i := range out {
			out[i].unknown = true
		}
	}
	for _, x := range out {
		if x.unknown {
			a.unknownVals[x.val] = true
		}
	}
	return out
}

// wordValue expands a word without splitting or globbing (an assignment's
// value, a heredoc on <<<).
func (a *analyzer) wordValue(w *syntax.Word, st *state, depth int) (string, bool) {
	unknown := false
	v, err := expand.Literal(a.config(st, depth, &unknown), w)
	if err != nil {
		return literalText(w), true
	}
	return v, unknown || a.unknownParams(w, st)
}

func (a *analyzer) literalWord(w *syntax.Word, st *state, depth int) string {
	v, _ := a.wordValue(w, st, depth)
	return v
}

// unknownParams reports a $VAR in w that analysis has no value for.
func (a *analyzer) unknownParams(w *syntax.Word, st *state) bool {
	found := false
	syntax.Walk(w, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.ParamExp:
			if x.Param == nil {
				return true
			}
			name := x.Param.Value
			if u, _ := st.vars.get(unknownKey + name); u != "" {
				found = true
			} else if _, ok := st.vars.get(name); !ok && a.env.Vars[name] == "" && name != "PWD" && name != "OLDPWD" {
				found = true
			}
		case *syntax.CmdSubst, *syntax.ProcSubst:
			return false
		}
		return !found
	})
	return found
}

func (a *analyzer) config(st *state, depth int, unknown *bool) *expand.Config {
	cfg := &expand.Config{
		Env: environ{a: a, st: st},
		CmdSubst: func(w io.Writer, cs *syntax.CmdSubst) error {
			if isPwd(cs.Stmts) {
				_, err := io.WriteString(w, st.dir)
				return err
			}
			if text, ok := echoed(cs.Stmts); ok {
				// $(echo rm -f x): its text is known, and eval or sh -c of it
				// is judged as written.
				_, err := io.WriteString(w, text)
				return err
			}
			// What it prints is unknown; what it writes is still judged.
			a.stmts(cs.Stmts, st.sub(), depth)
			*unknown = true
			return nil
		},
		ProcSubst: func(ps *syntax.ProcSubst) (string, error) {
			a.stmts(ps.Stmts, st.sub(), depth)
			return "/dev/fd/63", nil
		},
		ReadDir2: func(dir string) ([]fs.DirEntry, error) {
			a.globReads++
			if a.globReads > maxGlobReads {
				a.uncertain("globbing read more directories than analysed")
				return nil, errGlobCap
			}
			return a.env.FS.ReadDir(dir)
		},
	}
	if a.noGlob {
		cfg.ReadDir2 = nil
	}
	return cfg
}

var errGlobCap = errors.New("glob cap reached")

// echoed is what a lone `echo` of literal words prints (without its newline).
func echoed(stmts []*syntax.Stmt) (string, bool) {
	if len(stmts) != 1 || len(stmts[0].Redirs) > 0 {
		return "", false
	}
	c, ok := stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) < 1 || len(c.Assigns) > 0 {
		return "", false
	}
	var words []string
	for _, w := range c.Args {
		s, ok := literalValue(w)
		if !ok {
			return "", false
		}
		words = append(words, s)
	}
	if words[0] != "echo" || len(words) > 1 && strings.HasPrefix(words[1], "-") {
		return "", false
	}
	return strings.Join(words[1:], " "), true
}

// isPwd: $(pwd), `pwd`, $(builtin pwd), $(pwd -L).
func isPwd(stmts []*syntax.Stmt) bool {
	if len(stmts) != 1 {
		return false
	}
	c, ok := stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) == 0 {
		return false
	}
	args := Unwrap(wordsLit(c.Args))
	return len(args) >= 1 && args[0] == "pwd" && (len(args) == 1 || args[1] == "-L")
}

func wordsLit(ws []*syntax.Word) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = word(w)
	}
	return out
}

// environ gives expand the state's variables with PWD following cd.
type environ struct {
	a  *analyzer
	st *state
}

func (e environ) Get(name string) expand.Variable {
	switch name {
	case "PWD":
		return strVar(e.st.dir)
	case "OLDPWD":
		if e.st.oldpwd != "" {
			return strVar(e.st.oldpwd)
		}
	}
	if v, ok := e.st.vars.get(name); ok {
		return strVar(v)
	}
	if v, ok := e.a.env.Vars[name]; ok {
		return strVar(v)
	}
	return expand.Variable{}
}

func (e environ) Each(fn func(string, expand.Variable) bool) {
	for k, v := range e.a.env.Vars {
		if !fn(k, strVar(v)) {
			return
		}
	}
}

func strVar(v string) expand.Variable {
	return expand.Variable{Set: true, Exported: true, Kind: expand.String, Str: v}
}

// printWord is a word as written; the printer (and its buffer) is made once
// per analysis, not per word.
func (a *analyzer) printWord(w *syntax.Word) string {
	if lit := w.Lit(); lit != "" {
		return lit
	}
	if a.printer == nil {
		a.printer = syntax.NewPrinter()
	}
	var b bytes.Buffer
	_ = a.printer.Print(&b, w)
	return b.String()
}

// literalText is a word's text with quotes removed where it has no expansion,
// else as written.
func literalText(w *syntax.Word) string { return word(w) }

// GlobPrefix is the directory part of p before its first glob pattern; p
// itself when it has none.
func GlobPrefix(p string) string {
	if !hasMeta(p) {
		return p
	}
	parts := strings.Split(p, "/")
	for i, part := range parts {
		if hasMeta(part) {
			if i == 0 {
				return "."
			}
			if i == 1 && parts[0] == "" {
				return "/"
			}
			return strings.Join(parts[:i], "/")
		}
	}
	return p
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// abs makes p absolute against the state's directory.
func (a *analyzer) abs(st *state, p string) string { return Abs(p, st.dir, a.env.Home) }

// Abs is p absolute as a shell reads it in dir: a leading ~ is home, a
// relative path under dir, cleaned.
func Abs(p, dir, home string) string {
	if strings.HasPrefix(p, "~/") || p == "~" {
		p = home + p[1:]
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return filepath.Clean(p)
}

// write records a target; p is relative to the state's directory.
func (a *analyzer) write(st *state, p, op, raw string, tree bool) {
	if p == "" || p == "-" {
		return
	}
	if a.unknownVals[p] {
		a.uncertain(op + " target not known: " + clip(raw))
	}
	if !filepath.IsAbs(p) && st.lostDir {
		a.uncertain("relative path after cd to an unknown directory: " + clip(raw))
	}
	if strings.HasPrefix(p, "~/") {
		p = a.env.Home + p[1:]
	}
	if !filepath.IsAbs(p) {
		// Not cleaned: the kernel reads ".." after a symlink physically.
		p = st.dir + "/" + p
	}
	if c := filepath.Clean(p); strings.HasPrefix(c, "/dev/") {
		return
	}
	if a.tooManyPaths() {
		return
	}
	r, ok := a.resolved[p]
	if !ok {
		r[0], r[1] = a.resolve(p)
		a.resolved[p] = r
	}
	full, parents := r[0], r[1]
	a.add(Target{Path: full, Op: op, Word: raw, Tree: tree})
	if parents != full {
		// The last part is a symlink: writing through it writes full, removing
		// or replacing it changes the link itself.
		a.add(Target{Path: parents, Op: op, Word: raw, Tree: tree})
	}
}

// tooManyPaths counts one more path to resolve and says whether it is past
// maxPaths: the rest are not resolved, and the analysis is uncertain.
func (a *analyzer) tooManyPaths() bool {
	a.paths++
	if a.paths > maxPaths {
		a.uncertain("more files than analysed")
		return true
	}
	return false
}

func (a *analyzer) add(t Target) {
	if !a.seen[t] {
		a.seen[t] = true
		a.out.Writes = append(a.out.Writes, t)
	}
}

// resolve follows symlinks on the existing prefix of an absolute path, and
// its ".." physically, as the kernel does. It returns the path with every link resolved and the path with only its
// parents resolved (they differ when the last part is itself a link).
func (a *analyzer) resolve(p string) (full, parents string) {
	p = strings.TrimRight(p, "/")
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return "/", "/" // p was all slashes
	}
	dir, base := p[:i], p[i+1:]
	if base == "" || base == "." || base == ".." || dir == "" {
		r := a.resolveAll(p + "/")
		return r, r
	}
	rd := a.resolveDir(dir)
	parents = filepath.Join(rd, base)
	if a.missing[rd] {
		return parents, parents
	}
	fi, err := a.env.FS.Lstat(parents)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return parents, parents
	}
	return a.resolveAll(parents), parents
}

// resolveDir is resolveAll cached per prefix: the writes of one command line
// share their directories, and below a missing directory nothing is looked up.
func (a *analyzer) resolveDir(dir string) string {
	if r, ok := a.dirs[dir]; ok {
		return r
	}
	i := strings.LastIndexByte(dir, '/')
	base := dir[i+1:]
	var r string
	switch {
	case i < 0 || base == "." || base == ".." || base == "":
		r = a.resolveAll(dir)
	default:
		parent := "/"
		if i > 0 {
			parent = a.resolveDir(dir[:i])
		}
		r = filepath.Join(parent, base)
		if a.missing[parent] {
			a.missing[r] = true
			break
		}
		fi, err := a.env.FS.Lstat(r)
		switch {
		case err != nil:
			a.missing[r] = true
		case fi.Mode()&fs.ModeSymlink != 0:
			r = a.resolveAll(r)
		}
	}
	a.dirs[dir] = r
	return r
}

func (a *analyzer) resolveAll(p string) string {
	rest := splitPath(p)
	cur := "/"
	hops := 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		next := filepath.Join(cur, c)
		fi, err := a.env.FS.Lstat(next)
		if err != nil {
			return filepath.Join(append([]string{next}, rest...)...)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		hops++
		target, err := a.env.FS.Readlink(next)
		if err != nil || hops > maxLinkHops {
			if hops > maxLinkHops {
				a.uncertain("too many symlinks: " + clip(p))
			}
			return filepath.Join(append([]string{next}, rest...)...)
		}
		if filepath.IsAbs(target) {
			cur = "/"
		}
		rest = append(splitPath(target), rest...)
	}
	return cur
}

func splitPath(p string) []string {
	var out []string
	for _, s := range strings.Split(p, "/") {
		if s != "" && s != "." {
			out = append(out, s)
		}
	}
	return out
}

// Resolve returns p (absolute, or relative to env.Dir) the way Analyze reports
// targets: symlinks on its existing prefix resolved, and when its last part is
// itself a symlink, the link's own path as a second entry. A guard resolves
// its protected paths with it so that both sides compare alike.
func Resolve(p string, env Env) []string { return NewResolver(env).Resolve(p) }

// Resolver resolves many paths in one environment as Resolve does, sharing
// what it learns of their directories: a guard resolves a score of protected
// paths per tool call, most under the same few folders.
type Resolver struct{ a *analyzer }

// NewResolver is a Resolver for paths relative to env.Dir.
func NewResolver(env Env) *Resolver { return &Resolver{a: newAnalyzer(env)} }

// Resolve is the package's Resolve with the resolver's caches.
func (r *Resolver) Resolve(p string) []string {
	a := r.a
	a.out.Writes = a.out.Writes[:0]
	a.paths = 0
	clear(a.seen)
	a.write(&state{dir: a.env.Dir, vars: &scope{}}, p, "", p, false)
	out := make([]string, len(a.out.Writes))
	for i, t := range a.out.Writes {
		out[i] = t.Path
	}
	return out
}
