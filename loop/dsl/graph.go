package dsl

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Graph formats.
const (
	GraphMermaid = "mermaid"
	GraphDOT     = "dot"
)

// GraphFormats lists the formats Graph draws.
var GraphFormats = []string{GraphMermaid, GraphDOT}

// Graph draws the machine: every state, every transition labelled with its event
// and [guards], the initial state, the terminal states and the stop state (and
// states that wait for a person). The output depends only on the definition, in
// file order, so it can be diffed and kept in golden files.
func Graph(d *Definition, format string) (string, error) {
	switch format {
	case GraphMermaid, "":
		return mermaid(d), nil
	case GraphDOT:
		return dot(d), nil
	}
	return "", fmt.Errorf("unknown graph format %q (want %s)", format, strings.Join(GraphFormats, " or "))
}

// edgeLabel is "event [guard1, guard2]".
func edgeLabel(t Transition) string {
	if len(t.Guards) == 0 {
		return t.Event
	}
	return t.Event + " [" + strings.Join(t.Guards, ", ") + "]"
}

// mermaidIdent is compiled on first use, by graph only (not at hook start-up).
var mermaidIdent = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// mermaidReserved: words stateDiagram-v2 reads as keywords, so a state with
// such a name needs an alias.
func mermaidReserved(s string) bool {
	switch s {
	case "state", "note", "class", "classDef", "direction",
		"end", "click", "style", "as", "left", "right", "of":
		return true
	}
	return false
}

// mermaidEscape turns the characters Mermaid would read as syntax into its
// entity codes, in one pass (so "#" in "#59;" is not escaped again).
var mermaidEscape = strings.NewReplacer("#", "#35;", ";", "#59;", "\"", "#quot;")

func mermaidText(s string) string {
	return mermaidEscape.Replace(strings.Join(strings.Fields(s), " "))
}

func mermaid(d *Definition) string {
	var b strings.Builder
	id := map[string]string{}
	b.WriteString("stateDiagram-v2\n")
	fmt.Fprintf(&b, "    %%%% loop %s\n", mermaidText(d.ID))
	for i, s := range d.States {
		if mermaidIdent().MatchString(s) && !mermaidReserved(s) {
			id[s] = s
			fmt.Fprintf(&b, "    %s\n", s)
		} else {
			id[s] = fmt.Sprintf("s%d", i)
			fmt.Fprintf(&b, "    state \"%s\" as %s\n", mermaidText(s), id[s])
		}
	}
	ref := func(s string) string {
		if v, ok := id[s]; ok {
			return v
		}
		return mermaidText(s)
	}
	fmt.Fprintf(&b, "    [*] --> %s\n", ref(d.InitialState))
	for _, t := range d.Transitions {
		fmt.Fprintf(&b, "    %s --> %s : %s\n", ref(t.From), ref(t.To), mermaidText(edgeLabel(t)))
	}
	for _, s := range d.TerminalStates {
		fmt.Fprintf(&b, "    %s --> [*]\n", ref(s))
	}
	if d.StopState != "" {
		fmt.Fprintf(&b, "    note right of %s : stop state\n", ref(d.StopState))
	}
	b.WriteString("    classDef terminal stroke-width:3px,font-weight:bold\n")
	b.WriteString("    classDef stop stroke-width:3px,stroke-dasharray:5 3,font-style:italic\n")
	b.WriteString("    classDef human stroke-dasharray:2 2\n")
	var term []string
	for _, s := range d.TerminalStates {
		if s != d.StopState {
			term = append(term, ref(s))
		}
	}
	if len(term) > 0 {
		fmt.Fprintf(&b, "    class %s terminal\n", strings.Join(term, ","))
	}
	if d.StopState != "" {
		fmt.Fprintf(&b, "    class %s stop\n", ref(d.StopState))
	}
	var human []string
	for _, s := range d.WaitsForHuman {
		human = append(human, ref(s))
	}
	if len(human) > 0 {
		fmt.Fprintf(&b, "    class %s human\n", strings.Join(human, ","))
	}
	return b.String()
}

func dotQuote(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	s = strings.ReplaceAll(s, `"`, `\"`)
	s = strings.ReplaceAll(s, "\n", `\n`)
	return `"` + s + `"`
}

func dot(d *Definition) string {
	var b strings.Builder
	fmt.Fprintf(&b, "digraph %s {\n", dotQuote(d.ID))
	b.WriteString("  rankdir=LR;\n")
	b.WriteString("  node [shape=ellipse];\n")
	// The initial state is marked the usual way: an arrow from a dot.
	start := "__start__"
	for d.HasState(start) {
		start = "_" + start + "_"
	}
	fmt.Fprintf(&b, "  %s [shape=point, label=\"\"];\n", dotQuote(start))
	for _, s := range d.States {
		var attrs []string
		switch {
		case s == d.StopState:
			attrs = append(attrs, "shape=doublecircle", "style=dashed", `xlabel="stop state"`)
		case d.IsTerminal(s):
			attrs = append(attrs, "shape=doublecircle")
		case s == d.InitialState:
			attrs = append(attrs, "penwidth=2")
		}
		if d.WaitsForHumanIn(s) {
			attrs = append(attrs, "shape=box", "style=rounded", `xlabel="waits for a person"`)
		}
		if len(attrs) == 0 {
			fmt.Fprintf(&b, "  %s;\n", dotQuote(s))
		} else {
			fmt.Fprintf(&b, "  %s [%s];\n", dotQuote(s), strings.Join(attrs, ", "))
		}
	}
	fmt.Fprintf(&b, "  %s -> %s;\n", dotQuote(start), dotQuote(d.InitialState))
	for _, t := range d.Transitions {
		fmt.Fprintf(&b, "  %s -> %s [label=%s];\n", dotQuote(t.From), dotQuote(t.To), dotQuote(edgeLabel(t)))
	}
	b.WriteString("}\n")
	return b.String()
}
