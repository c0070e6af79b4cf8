package shell

import (
	"slices"
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
