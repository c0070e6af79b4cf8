package shell

import (
	"strings"
	"testing"
)

// Found by FuzzShellParse (seed testdata/fuzz/FuzzShellParse/90cb7438629e58e6):
// a byte that is not UTF-8 made the parser give up, and the blank-splitting
// fallback never looked inside `bash -c`, so the rm -rf in it went unseen. An
// unterminated quote takes the same fallback.
func TestRiskyCommandFoundDespiteBadInput(t *testing.T) {
	for _, src := range []string{
		"bash -c 'rm -rf \xbc'",
		"bash -c 'rm -rf /' # \xff",
		"sudo sh -c 'rm -rf /",
		`FOO=1 bash -lc "cd x && rm -rf y`,
	} {
		if !hasRm(Parse(src)) {
			t.Errorf("rm -rf not found in %q: %#v", src, Parse(src))
		}
	}
}

// Deep nesting takes the linear fallback instead of the parser (whose time
// grows with the square of the depth, past any hook timeout), and what the
// command runs is still found.
func TestDeepNestingStillFindsRiskyCommand(t *testing.T) {
	deep := strings.Repeat("(", 100_000)
	for _, src := range []string{
		"bash -c 'rm -rf /' " + deep,
		deep + " ; sudo rm -rf /",
		strings.Repeat("{ ", 50_000) + "rm -rf x",
		strings.Repeat(`"$(`, 50_000) + " && rm -rf x",
	} {
		if !nestsDeeper(src, maxParseDepth) {
			t.Fatalf("%.20q... not seen as deep", src)
		}
		if !hasRm(Parse(src)) {
			t.Errorf("rm -rf not found in %.30q...", src)
		}
	}
	for _, src := range []string{"f() { (cd a && (make)); }; f", `echo "$(date) $(pwd)"`, "a[1]=2"} {
		if nestsDeeper(src, maxParseDepth) {
			t.Errorf("%q seen as deep", src)
		}
	}
}

func BenchmarkParseDeep(b *testing.B) {
	src := strings.Repeat("(", 100_000)
	for b.Loop() {
		Parse(src)
	}
}
