package shell

import "strings"

// sedCall is a sed command line read as GNU sed reads it.
type sedCall struct {
	scripts []arg // the -e values, or else the first operand
	files   []arg
	// inPlace: -i in any spelling (-i, -i.bak, -Ei, --in-place=.bak);
	// fromFile: a -f script, not known here; sandbox: --sandbox, which
	// refuses w, e and r; odd: an option sed does not know (it fails).
	inPlace, fromFile, sandbox, odd bool
}

// sedLong are GNU sed's long options; an abbreviation names the one it
// begins, if only one.
var sedLong = []string{"in-place", "expression", "file", "line-length", "null-data", "zero-terminated", "quiet", "silent",
	"regexp-extended", "separate", "sandbox", "unbuffered", "debug", "posix", "follow-symlinks", "binary", "help", "version"}

func readSed(args []arg) sedCall {
	var c sedCall
	var ops []arg
	value := func(i *int, attached string, x arg) arg {
		if attached != "" {
			return arg{val: attached, raw: x.raw, unknown: x.unknown}
		}
		if *i+1 < len(args) {
			*i++
			return args[*i]
		}
		return arg{}
	}
	for i := 0; i < len(args); i++ {
		x := args[i]
		s := x.val
		switch {
		case s == "--":
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(s, "--"):
			name, v, hasV := strings.Cut(s[2:], "=")
			full := ""
			for _, o := range sedLong {
				if strings.HasPrefix(o, name) {
					if full != "" && o != name {
						full = "?" // ambiguous
						break
					}
					full = o
				}
			}
			switch full {
			case "in-place":
				c.inPlace = true
			case "expression":
				if !hasV {
					c.scripts = append(c.scripts, value(&i, "", x))
				} else {
					c.scripts = append(c.scripts, arg{val: v, raw: x.raw, unknown: x.unknown})
				}
			case "file", "line-length":
				c.fromFile = c.fromFile || full == "file"
				if !hasV {
					value(&i, "", x)
				}
			case "sandbox":
				c.sandbox = true
			case "", "?":
				c.odd = true
			}
		case len(s) > 1 && s[0] == '-':
		cluster:
			for j := 1; j < len(s); j++ {
				switch s[j] {
				case 'i':
					c.inPlace = true
					break cluster // the rest is the backup suffix
				case 'e':
					c.scripts = append(c.scripts, value(&i, s[j+1:], x))
					break cluster
				case 'f', 'l':
					c.fromFile = c.fromFile || s[j] == 'f'
					value(&i, s[j+1:], x)
					break cluster
				case 'n', 'r', 'E', 's', 'u', 'z':
				default:
					c.odd = true
				}
			}
		default:
			ops = append(ops, x)
		}
	}
	if len(c.scripts) == 0 && !c.fromFile && len(ops) > 0 {
		c.scripts, ops = ops[:1], ops[1:]
	}
	c.files = ops
	return c
}

// reads: sed only reads its files and prints: no -i, a script known here
// with no w, W or e in it.
func (c sedCall) reads() bool {
	if c.inPlace || c.odd || c.fromFile && !c.sandbox {
		return false
	}
	for _, s := range c.scripts {
		fx, ok := parseSed(s.val)
		if s.unknown || !c.sandbox && (!ok || len(fx.writes) > 0 || len(fx.runs) > 0 || fx.runsPattern) {
			return false
		}
	}
	return true
}

// sedEffects is what a sed script does besides printing.
type sedEffects struct {
	writes, reads []string // w, W and s///w files; r and R files
	runs          []string // e COMMAND
	runsPattern   bool     // a bare e or s///e runs text made as it runs
}

// parseSed reads a sed script just far enough to find its w, W, r, R and e
// commands and s flags; ok is false for text it cannot follow.
func parseSed(s string) (fx sedEffects, ok bool) {
	i, n := 0, len(s)
	line := func() string { // the rest of the line
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			j = n - i
		}
		v := s[i : i+j]
		i += j
		return v
	}
	blanks := func() {
		for i < n && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
	}
	digits := func() {
		for i < n && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	// bracket passes a bracket expression whose '[' is read: GNU reads it
	// whole, so s/[/]/x/ is one regex. Unclosed, or across a line, GNU
	// fails: not followed here.
	bracket := func() bool {
		if i < n && s[i] == '^' {
			i++
		}
		if i < n && s[i] == ']' {
			i++
		}
		for i < n && s[i] != ']' {
			switch {
			case s[i] == '\n':
				return false
			case s[i] == '[' && i+1 < n && strings.IndexByte(":=.", s[i+1]) >= 0:
				end := strings.Index(s[i+2:], string(s[i+1])+"]")
				if end < 0 || strings.IndexByte(s[i+2:i+2+end], '\n') >= 0 {
					return false
				}
				i += end + 4
			default:
				i++
			}
		}
		if i >= n {
			return false
		}
		i++
		return true
	}
	// upTo passes text to the unescaped delimiter d; in a regex, past
	// bracket expressions.
	upTo := func(d byte, regex bool) bool {
		for i < n {
			c := s[i]
			i++
			if c == '\\' && i < n {
				i++
				continue
			}
			if c == d {
				return true
			}
			if c == '[' && regex && !bracket() {
				return false
			}
		}
		return false
	}
	address := func() bool {
		switch {
		case i < n && s[i] >= '0' && s[i] <= '9':
			digits()
			if i < n && s[i] == '~' {
				i++
				digits()
			}
		case i < n && s[i] == '$':
			i++
		case i < n && (s[i] == '+' || s[i] == '~'):
			i++
			digits()
		case i < n && s[i] == '/', i+1 < n && s[i] == '\\':
			d := byte('/')
			if s[i] == '\\' {
				d = s[i+1]
				i++
			}
			i++
			if !upTo(d, true) {
				return false
			}
			for i < n && (s[i] == 'I' || s[i] == 'M') {
				i++
			}
		}
		return true
	}
	for {
		for i < n && strings.IndexByte(" \t\n\r\v\f;", s[i]) >= 0 {
			i++
		}
		if i >= n {
			return fx, true
		}
		if s[i] == '#' {
			line()
			continue
		}
		if !address() {
			return fx, false
		}
		blanks()
		if i < n && s[i] == ',' {
			i++
			blanks()
			if !address() {
				return fx, false
			}
			blanks()
		}
		for i < n && (s[i] == '!' || s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i >= n {
			return fx, false
		}
		c := s[i]
		i++
		switch c {
		case '{', '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		case 'l', 'L', 'q', 'Q':
			blanks()
			digits()
		case ':', 'b', 't', 'T', 'v':
			// GNU ends a label (or v's version) at a blank too, and reads
			// what follows as the next command: ":a w x" writes x.
			blanks()
			for i < n && strings.IndexByte(" \t\n;}#", s[i]) < 0 {
				i++
			}
		case 'a', 'i', 'c':
			// Text to the end of the line; a backslash carries it on.
			for i < n && s[i] != '\n' {
				if s[i] == '\\' {
					i++
				}
				i++
			}
		case 'r', 'R':
			blanks()
			fx.reads = append(fx.reads, line())
		case 'w', 'W':
			blanks()
			fx.writes = append(fx.writes, line())
		case 'e':
			blanks()
			if cmd := line(); strings.TrimSpace(cmd) != "" {
				fx.runs = append(fx.runs, cmd)
			} else {
				fx.runsPattern = true
			}
		case 's', 'y':
			if i >= n || s[i] == '\n' || s[i] == '\\' {
				return fx, false
			}
			d := s[i]
			i++
			if !upTo(d, c == 's') { // the regex or source characters
				return fx, false
			}
			if !upTo(d, false) { // the replacement or target characters
				return fx, false
			}
		flags:
			for c == 's' && i < n {
				switch f := s[i]; {
				case f == 'w':
					i++
					blanks()
					fx.writes = append(fx.writes, line())
				case f == 'e':
					i++
					fx.runsPattern = true
				case strings.IndexByte("gpiImM0123456789", f) >= 0:
					i++
				default:
					break flags
				}
			}
		default:
			return fx, false
		}
	}
}

// sed writes its files with -i, and what its script's w commands name;
// the commands its e runs are judged as shell.
func (a *analyzer) sed(args []arg, st *state, depth int) {
	c := readSed(args)
	if c.inPlace {
		for _, o := range c.files {
			a.write(st, o.val, "sed -i", o.raw, false)
		}
	}
	if c.sandbox {
		return
	}
	if c.fromFile {
		a.uncertain("sed reads its script from a file")
	}
	reader := c.reads() && !a.runsEnv
	for _, s := range c.scripts {
		fx, ok := parseSed(s.val)
		if s.unknown {
			// Like other code with a word made as it runs (sed "s/$X/y/"):
			// judged by the names its text holds.
			a.inline("sed", s.raw, st)
		} else if !ok {
			a.uncertain("sed script not read: " + clip(s.raw))
			a.inline("sed", s.val, st)
			continue
		}
		for _, w := range fx.writes {
			a.write(st, w, "sed w", s.raw, false)
		}
		for _, r := range fx.reads {
			a.name(st, r, "sed", s.raw, reader, false)
		}
		for _, cmd := range fx.runs {
			if depth < maxNesting {
				a.script(cmd, st.sub(), depth+1)
			} else {
				a.uncertain("sed e nested deeper than analysed")
			}
		}
		if fx.runsPattern {
			a.uncertain("sed runs text made as it runs (e): " + clip(s.raw))
		}
	}
}
