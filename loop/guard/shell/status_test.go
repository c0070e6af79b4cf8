package shell

import (
	"regexp"
	"slices"
	"testing"
)

func statusTexts(src string, code int) []string {
	var out []string
	for _, c := range StatusCalls(src, code) {
		out = append(out, c.Text)
	}
	return out
}

// TestStatusCalls: the commands whose own status a line's exit code reports.
func TestStatusCalls(t *testing.T) {
	for _, c := range []struct {
		src  string
		code int
		want []string
	}{
		{`go test ./...`, 0, []string{`go test ./...`}},
		{`go test ./... 2>&1 | tail -5`, 0, []string{`tail -5`}},
		{`set -o pipefail; go test ./... 2>&1 | tail -5`, 0, []string{`go test ./... 2>&1`, `tail -5`}},
		{`set -euo pipefail; go test | tee o`, 1, []string{`go test`, `tee o`}},
		{`go test || true`, 0, nil},
		{`go test || exit 1`, 0, []string{`go test`}},
		{`go test || exit 256`, 0, nil},
		{`go test || exit 1`, 1, []string{`go test`, `exit 1`}},
		{`cd pkg && go test`, 0, []string{`cd pkg`, `go test`}},
		{`go test; exit 0`, 0, []string{`exit 0`}},
		{`go test; exit $?`, 0, []string{`go test`}},
		{`GOFLAGS=-count=1 env X=1 timeout 60 go test`, 0, []string{`go test`}},
		{`time (cd a && make test)`, 0, []string{`cd a`, `make test`}},
		{`bash -c 'go test || true'`, 0, []string{`bash -c 'go test || true'`}},
		{`bash -lc "go test"`, 0, []string{`bash -lc 'go test'`, `go test`}},
		{`bash -c "$X"`, 0, []string{`bash -c "$X"`}},
		{`echo "$(go test)"`, 0, []string{`echo "$(go test)"`}},
		{`echo 0.91 >> results.tsv`, 0, []string{`echo 0.91 >> results.tsv`}},
		{`nice -n 5 sudo -u ci go test`, 0, []string{`go test`}},
		{`su ci -c 'make test'`, 0, []string{`make test`}},
		{`setsid go test`, 0, nil},
		{`echo ./... | xargs go test`, 0, nil},
		{`command -v go`, 0, nil},
		{`! go test`, 1, nil},
		{`go test &`, 0, nil},
		{`X=1`, 0, nil},
		{`for p in a b; do go test $p; done`, 0, nil},
		{`go test "`, 0, nil},
	} {
		if got := statusTexts(c.src, c.code); !slices.Equal(got, c.want) {
			t.Errorf("StatusCalls(%q, %d) = %q, want %q", c.src, c.code, got, c.want)
		}
	}
}

// TestStatusCallMatches: a match counts where it begins in the program or in a
// plain argument or redirection target of a program that runs its arguments.
func TestStatusCallMatches(t *testing.T) {
	re := regexp.MustCompile(`go test|results\.tsv`)
	for _, c := range []struct {
		src  string
		want bool
	}{
		{`go test ./...`, true},
		{`"go" 'test'`, true},
		{`grep -rn "go test" Makefile`, false},
		{`git commit -m "go test passes"`, false},
		{`echo go test`, false},
		{`echo 0.91 >> results.tsv`, true},
		{`./run.sh >> results.tsv`, true},
		{`echo results.tsv`, false},
		{`go $T test`, false},
	} {
		got := false
		for _, sc := range StatusCalls(c.src, 0) {
			got = got || sc.Matches(re)
		}
		if got != c.want {
			t.Errorf("%q: matched %v, want %v", c.src, got, c.want)
		}
	}
}

// FuzzStatusCalls: any line is answered, without panicking.
func FuzzStatusCalls(f *testing.F) {
	for _, s := range []string{`go test ./... | tail`, `set -o pipefail; a | b || true`, `bash -c 'bash -c "x && y"'`, `{ (a; b) && c; } || exit 1`} {
		f.Add(s, 0)
	}
	re := regexp.MustCompile(`test`)
	f.Fuzz(func(t *testing.T, src string, code int) {
		for _, c := range StatusCalls(src, code) {
			c.Matches(re)
		}
	})
}
