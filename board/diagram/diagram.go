// Package diagram draws a loop's state machine as an SVG image, laid out in
// columns by distance from the initial state, so a page can show it without any
// script or network.
package diagram

import (
	"fmt"
	"html"
	"slices"
	"strings"
	"unicode/utf8"

	loopdsl "github.com/hook-loop/hook-loop/loop/dsl"
)

const (
	nodeH   = 32
	rowGap  = 30
	colGap  = 110 // room for an edge's label between columns
	charW   = 7.4 // average glyph width of the 13px sans-serif labels
	padX    = 18
	margin  = 24
	loopTop = 46 // room above the nodes for edges that go back
)

type node struct {
	name       string
	col, row   int
	x, y, w, h float64
}

// SVG draws def with state current highlighted ("" for none).
func SVG(def *loopdsl.Definition, current string) string {
	nodes, byName := layout(def)
	width, height := 0.0, 0.0
	for _, n := range nodes {
		width = max(width, n.x+n.w)
		height = max(height, n.y+n.h)
	}
	// Edges that go back are drawn below the nodes, one lane each.
	type edge struct {
		from, to *node
		label    string
	}
	var edges []edge
	seen := map[[2]string]int{}
	for _, t := range def.Transitions {
		from, to := byName[t.From], byName[t.To]
		if from == nil || to == nil {
			continue
		}
		k := [2]string{t.From, t.To}
		if i, ok := seen[k]; ok {
			edges[i].label += ", " + t.Event
			continue
		}
		seen[k] = len(edges)
		edges = append(edges, edge{from, to, t.Event})
	}
	lanes := 0
	for _, e := range edges {
		if e.to.col <= e.from.col && e.to != e.from {
			lanes++
		}
	}
	height += float64(lanes)*22 + margin + 10

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="diagram" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f" role="img" aria-label="loop %s">`,
		width+margin, height, width+margin, height, esc(def.ID))
	b.WriteString(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#64748b"/></marker>` +
		`<marker id="arrow-hot" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#2563eb"/></marker></defs>`)

	lane := 0
	var labels strings.Builder
	for _, e := range edges {
		hot := e.from.name == current
		cls, marker := "edge", "arrow"
		if hot {
			cls, marker = "edge hot", "arrow-hot"
		}
		var d string
		var lx, ly float64
		switch {
		case e.from == e.to:
			x, y := e.from.x+e.from.w/2, e.from.y
			d = fmt.Sprintf("M%.1f,%.1f C%.1f,%.1f %.1f,%.1f %.1f,%.1f", x-10, y, x-30, y-36, x+30, y-36, x+10, y)
			lx, ly = x, y-32
		case e.to.col > e.from.col:
			x1, y1 := e.from.x+e.from.w, e.from.y+e.from.h/2
			x2, y2 := e.to.x, e.to.y+e.to.h/2
			mx := (x1 + x2) / 2
			d = fmt.Sprintf("M%.1f,%.1f C%.1f,%.1f %.1f,%.1f %.1f,%.1f", x1, y1, mx, y1, mx, y2, x2-2, y2)
			lx, ly = mx, (y1+y2)/2-4
		default:
			// Back (or sideways) edges run below every node in their own lane.
			lane++
			x1, x2 := e.from.x+e.from.w/2, e.to.x+e.to.w/2
			base := height - float64(lanes-lane+1)*22 - 6
			d = fmt.Sprintf("M%.1f,%.1f L%.1f,%.1f L%.1f,%.1f L%.1f,%.1f", x1, e.from.y+e.from.h, x1, base, x2, base, x2, e.to.y+e.to.h+2)
			lx, ly = (x1+x2)/2, base-4
		}
		fmt.Fprintf(&b, `<path class="%s" d="%s" fill="none" stroke="%s" stroke-width="%s" marker-end="url(#%s)"/>`,
			cls, d, map[bool]string{true: "#2563eb", false: "#94a3b8"}[hot], map[bool]string{true: "2", false: "1.3"}[hot], marker)
		fmt.Fprintf(&labels, `<text x="%.1f" y="%.1f" text-anchor="middle" class="elabel" font-size="11" fill="%s" stroke="#fff" stroke-width="4" paint-order="stroke">%s</text>`,
			lx, ly, map[bool]string{true: "#1d4ed8", false: "#475569"}[hot], esc(e.label))
	}
	b.WriteString(labels.String())

	for _, n := range nodes {
		fill, stroke, text, sw := "#fff", "#94a3b8", "#0f172a", "1.3"
		cls := "state"
		switch {
		case n.name == current:
			fill, stroke, text, sw = "#2563eb", "#1d4ed8", "#fff", "2"
			cls += " current"
		case def.WaitsForHumanIn(n.name):
			fill, stroke = "#fffbeb", "#d97706"
		case def.IsTerminal(n.name):
			fill = "#f0fdf4"
			stroke = "#16a34a"
		}
		fmt.Fprintf(&b, `<g class="%s" data-state="%s">`, cls, esc(n.name))
		dash := ""
		if def.WaitsForHumanIn(n.name) {
			dash = ` stroke-dasharray="5 3"`
		}
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" rx="16" fill="%s" stroke="%s" stroke-width="%s"%s/>`,
			n.x, n.y, n.w, n.h, fill, stroke, sw, dash)
		if def.IsTerminal(n.name) {
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" rx="13" fill="none" stroke="%s" stroke-width="1"/>`,
				n.x+3, n.y+3, n.w-6, n.h-6, stroke)
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="13" fill="%s">%s</text></g>`,
			n.x+n.w/2, n.y+n.h/2+4.5, text, esc(n.name))
		if n.name == def.InitialState {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="4" fill="#0f172a"/><path d="M%.1f,%.1f L%.1f,%.1f" stroke="#0f172a" stroke-width="1.3" marker-end="url(#arrow)"/>`,
				n.x-18, n.y+n.h/2, n.x-14, n.y+n.h/2, n.x-2, n.y+n.h/2)
		}
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// layout puts each state in the column of its shortest distance from the
// initial state (unreachable states after the last), rows in definition order.
func layout(def *loopdsl.Definition) ([]*node, map[string]*node) {
	depth := map[string]int{def.InitialState: 0}
	queue := []string{def.InitialState}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, t := range def.Outgoing(s) {
			if _, ok := depth[t.To]; !ok {
				depth[t.To] = depth[s] + 1
				queue = append(queue, t.To)
			}
		}
	}
	maxDepth := 0
	for _, d := range depth {
		maxDepth = max(maxDepth, d)
	}
	var nodes []*node
	byName := map[string]*node{}
	cols := map[int][]*node{}
	for _, s := range def.States {
		d, ok := depth[s]
		if !ok {
			// Unreachable from the initial state (a stop state entered from
			// outside the machine): beside the deepest states, not in a column
			// of its own.
			d = max(maxDepth, 1)
		}
		n := &node{name: s, col: d, row: len(cols[d]), h: nodeH}
		n.w = float64(utf8.RuneCountInString(s))*charW + 2*padX
		cols[d] = append(cols[d], n)
		nodes = append(nodes, n)
		byName[s] = n
	}
	keys := make([]int, 0, len(cols))
	maxRows := 0
	for k, c := range cols {
		keys = append(keys, k)
		maxRows = max(maxRows, len(c))
	}
	slices.Sort(keys)
	x := float64(margin + 14)
	fullH := float64(maxRows)*(nodeH+rowGap) - rowGap
	for _, k := range keys {
		c := cols[k]
		w := 0.0
		for _, n := range c {
			w = max(w, n.w)
		}
		colH := float64(len(c))*(nodeH+rowGap) - rowGap
		for i, n := range c {
			n.x = x + (w-n.w)/2
			n.y = loopTop + (fullH-colH)/2 + float64(i)*(nodeH+rowGap)
		}
		x += w + colGap
	}
	return nodes, byName
}

func esc(s string) string { return html.EscapeString(s) }
