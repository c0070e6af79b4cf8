package shell

import "testing"

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
