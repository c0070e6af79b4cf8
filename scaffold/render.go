package scaffold

import (
	"fmt"
	"io"
	"strings"
)

// Render prints the plan: every file with its exact change, then the notes.
func (p *CodexPlan) Render(w io.Writer) {
	for _, c := range p.Changes {
		verb := "edit"
		switch {
		case c.Dir:
			verb = "remove directory"
		case c.Before == nil:
			verb = "create"
		case c.After == nil:
			verb = "remove"
		}
		fmt.Fprintf(w, "%s %s", verb, c.Path)
		if c.Note != "" {
			fmt.Fprintf(w, " (%s)", c.Note)
		}
		fmt.Fprintln(w)
		if c.Dir {
			continue
		}
		fmt.Fprint(w, LineDiff(c.Path, c.Before, c.After))
	}
	for _, n := range p.Notes {
		fmt.Fprintln(w, n)
	}
}

// LineDiff renders a unified-diff-like listing of the change from before to
// after: "--- path", "+++ path", then every line prefixed with ' ', '-' or '+'.
// Files here are small (hooks.json, a loop), so the whole file is shown.
func LineDiff(path string, before, after []byte) string {
	a, b := splitLines(before), splitLines(after)
	var sb strings.Builder
	from, to := path, path
	if before == nil {
		from = "/dev/null"
	}
	if after == nil {
		to = "/dev/null"
	}
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", from, to)
	// Longest common subsequence over lines.
	n, m := len(a), len(b)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			sb.WriteString(" " + a[i] + "\n")
			i++
			j++
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			sb.WriteString("-" + a[i] + "\n")
			i++
		default:
			sb.WriteString("+" + b[j] + "\n")
			j++
		}
	}
	return sb.String()
}

func splitLines(b []byte) []string {
	s := strings.TrimSuffix(string(b), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
