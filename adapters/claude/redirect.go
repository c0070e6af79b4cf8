package claude

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// redirectTargets returns the literal files a shell command writes through output
// redirections (>, >>, &>, >|), e.g. "echo x > notes.txt". A command that does
// not parse, or a target built from variables or substitutions, yields nothing:
// the engine's own command policy judges such commands from their text.
func redirectTargets(command string) []string {
	if strings.TrimSpace(command) == "" || !strings.ContainsAny(command, ">") {
		return nil
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return nil
	}
	var out []string
	syntax.Walk(f, func(n syntax.Node) bool {
		r, ok := n.(*syntax.Redirect)
		if !ok || r.Word == nil {
			return true
		}
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob:
		default:
			return true
		}
		if r.N != nil && r.N.Value != "1" && r.N.Value != "2" {
			return true
		}
		lit := literal(r.Word)
		if lit == "" || lit == "/dev/null" || strings.HasPrefix(lit, "/dev/std") || strings.HasPrefix(lit, "&") {
			return true
		}
		out = append(out, lit)
		return true
	})
	return out
}

// literal returns the word's value when it is made only of literal and quoted
// literal parts, else "".
func literal(w *syntax.Word) string {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return ""
				}
				b.WriteString(l.Value)
			}
		default:
			return ""
		}
	}
	return b.String()
}
