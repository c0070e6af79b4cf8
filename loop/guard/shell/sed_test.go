package shell

import (
	"slices"
	"strings"
	"testing"
)

// TestParseSedFindsEffects: the w, r and e of a sed script are found past
// addresses, regexes holding the command letters, labels and text.
func TestParseSedFindsEffects(t *testing.T) {
	for _, c := range []struct {
		script        string
		writes, reads []string
		runs          []string
		pattern, ok   bool
	}{
		{script: "1,20p", ok: true},
		{script: `/wow/,/eww/{/e/!p}`, ok: true},
		{script: `s/w/e/g;s|e|w|2;y/we/ew/`, ok: true},
		{script: `\,w,p;$!N;:a;ba`, ok: true},
		{script: "a\\\nw x\n", ok: true},
		{script: "1!G;h;$!d", ok: true},
		{script: "0~3p;2,+4d;3,~2=", ok: true},
		{script: "s/x/y/w out.txt", writes: []string{"out.txt"}, ok: true},
		{script: "p;W a b;p", writes: []string{"a b;p"}, ok: true},
		{script: "/x/ r in.txt", reads: []string{"in.txt"}, ok: true},
		{script: "1e ls -l", runs: []string{"ls -l"}, ok: true},
		{script: "s/x/y/e", pattern: true, ok: true},
		{script: "$ e", pattern: true, ok: true},
		// GNU ends a label at a blank, ';', '}' or '#' and reads on.
		{script: ":a w out.txt", writes: []string{"out.txt"}, ok: true},
		{script: ":a\tw out.txt", writes: []string{"out.txt"}, ok: true},
		{script: ": a e rm x", runs: []string{"rm x"}, ok: true},
		{script: "v 4.2 w out.txt", writes: []string{"out.txt"}, ok: true},
		{script: "ba w out.txt", writes: []string{"out.txt"}, ok: true},
		{script: "t  a  W out.txt", writes: []string{"out.txt"}, ok: true},
		{script: "{Ta}\nw out.txt", writes: []string{"out.txt"}, ok: true},
		{script: "ba#x;w out.txt", ok: true},
		{script: "b;w out.txt", writes: []string{"out.txt"}, ok: true},
		{script: "p;\f\r\vw out.txt", writes: []string{"out.txt"}, ok: true},
		// A bracket expression in a regex is read whole; not in a replacement or y.
		{script: "s/[/]/a/w out.txt", writes: []string{"out.txt"}, ok: true},
		{script: "s/[/]/a/;e rm x", runs: []string{"rm x"}, ok: true},
		{script: "s/[/]/a/e", pattern: true, ok: true},
		{script: "s/[]/]/a/e", pattern: true, ok: true},
		{script: "s/[^]/]/a/e", pattern: true, ok: true},
		{script: "s/[[:alpha:]/]/a/e", pattern: true, ok: true},
		{script: "s/[[=a=]/]/a/e", pattern: true, ok: true},
		{script: "s/[[.-.]/]/a/e", pattern: true, ok: true},
		{script: "s/[\\]/a/e", pattern: true, ok: true},
		{script: "s/[[]/a/e", pattern: true, ok: true},
		{script: "/[/]/w out.txt", writes: []string{"out.txt"}, ok: true},
		{script: "\\,[,],w out.txt", writes: []string{"out.txt"}, ok: true},
		{script: "s[b[X[w out.txt", writes: []string{"out.txt"}, ok: true},
		{script: "s/a/[/w out.txt", writes: []string{"out.txt"}, ok: true},
		{script: "y/[/]/;w out.txt", writes: []string{"out.txt"}, ok: true},
		{script: "s/[[:a/]/x/", ok: false},
		{script: "s/[a/x/", ok: false},
		{script: "s/[\n]/x/", ok: false},
		{script: "k", ok: false},
		{script: "s/x/y", ok: false},
	} {
		fx, ok := parseSed(c.script)
		if ok != c.ok || !slices.Equal(fx.writes, c.writes) || !slices.Equal(fx.reads, c.reads) ||
			!slices.Equal(fx.runs, c.runs) || fx.runsPattern != c.pattern {
			t.Errorf("%q: %+v ok=%v", c.script, fx, ok)
		}
	}
}

// TestParseSeesSedE: the command a sed e runs is a call of its own, also
// after a label ended by a blank or a bracket expression holding the
// delimiter.
func TestParseSeesSedE(t *testing.T) {
	for _, cmd := range []string{"sed '1e rm y' a.txt", "sed ':a e rm y' a.txt", "sed 'ba e rm y' a.txt",
		"sed 's/[/]/a/;e rm y' a.txt", "sh -c \"sed 'v 4.2 e rm y' a.txt\""} {
		var got []string
		for _, c := range Parse(cmd) {
			got = append(got, strings.Join(c.Args, " "))
		}
		if !slices.Contains(got, "rm y") {
			t.Errorf("%s: calls %q lack rm y", cmd, got)
		}
	}
}
