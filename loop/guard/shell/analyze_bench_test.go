package shell

import (
	"strings"
	"testing"
)

// BenchmarkAnalyze: deep nesting and expansion bombs must cost time linear in
// the input (a 10k form costs ten times its 1k form, not a hundred times).
func BenchmarkAnalyze(b *testing.B) {
	dir := b.TempDir()
	env := Env{Dir: dir, Root: dir, Home: "/home/u"}
	for _, c := range []struct{ name, src string }{
		{"typical", "cd sub && rm -f *.o build/{a,b}.o && sed -i s/a/b/ x.txt > out.log"},
		{"subshells1k", strings.Repeat("(", 1000) + "rm x" + strings.Repeat(")", 1000)},
		{"subshells10k", strings.Repeat("(", 10000) + "rm x" + strings.Repeat(")", 10000)},
		{"blocks10k", strings.Repeat("{ ", 10000) + "rm x;" + strings.Repeat(" }", 10000)},
		{"cmdsubst10k", strings.Repeat("$(", 10000) + "rm x" + strings.Repeat(")", 10000)},
		{"sequence1k", strings.Repeat("(cd a; rm b); ", 1000)},
		{"sequence10k", strings.Repeat("(cd a; rm b); ", 10000)},
		{"nested60", strings.Repeat("(", 60) + "rm x" + strings.Repeat(")", 60)},
		{"braceNest10k", "rm " + strings.Repeat("{a,", 10000) + "b" + strings.Repeat("}", 10000)},
		{"braceNest60", "rm " + strings.Repeat("{a,", 60) + "b" + strings.Repeat("}", 60)},
		{"braceBomb", "rm " + strings.Repeat("{a,b}", 40)},
		{"braceRange", "rm x{1..10000000}"},
		{"loops", strings.Repeat("for i in {1..200}; do ", 8) + "rm $i" + strings.Repeat("; done", 8)},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				Analyze(c.src, env)
			}
		})
	}
}

// BenchmarkParse is Parse of a typical command, with a pooled parser.
func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Parse("cd sub && rm -f *.o build/{a,b}.o && sed -i s/a/b/ x.txt > out.log")
	}
}
