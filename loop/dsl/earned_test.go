package dsl

import (
	"testing"

	"github.com/hook-loop/hook-loop/loop"
)

// The evidence patterns these tests hold to: the gallery's, and the Python
// original's looser one, which its files keep.
const (
	galleryTests   = `\b(go test|pytest|npm (run )?test|pnpm test|yarn test|make (test|check)|cargo test)\b`
	prototypeTests = `pytest|test|lint|mypy|git diff --check`
)

func bashResult(cmd string, code int) *loop.HookEvent {
	return &loop.HookEvent{Name: loop.EventPostToolUse, ToolName: "Bash", Command: cmd,
		Result: &loop.ToolResult{ExitCode: loop.IntPtr(code)}}
}

// TestEvidenceNotEarnedByAnotherCommand: with the tests failing, none of these
// exits with the test program's own status 0, so none is evidence under either
// pattern, although every one contains its text and exits 0.
func TestEvidenceNotEarnedByAnotherCommand(t *testing.T) {
	escapes := []string{
		// the four of the review (issue 31, class 3)
		`go test ./... 2>&1 | tail -5`,
		`go test ./... || true`,
		`grep -rn "go test" Makefile`,
		`git commit -m "go test passes"`,
		// masked statuses
		`go test ./... || :`,
		`go test ./...; true`,
		`go test ./...; exit 0`,
		`go test ./... || exit 0`,
		`go test ./... || echo failed`,
		`go test ./... | tee out.txt`,
		`(go test ./... || true)`,
		`{ go test ./...; } | cat`,
		`go test ./... ; echo done`,
		`! go test ./...`,
		`go test ./... &`,
		`if go test ./...; then echo ok; fi`,
		`set -o pipefail; go test ./... || true`,
		`set -o pipefail; set +o pipefail; go test ./... | tail -5`,
		`bash -c 'go test ./... || true'`,
		`sh -c "go test ./...; true"`,
		// text of another program
		`echo "go test"`,
		`echo go test`,
		`printf 'go test ok\n'`,
		`true go test`,
		`: go test`,
		`rg "make test" docs`,
		`git commit -am "make check is green"`,
		`git log --grep "cargo test"`,
		`bash -c "$CMD go test"`,
		// program names that run something else
		`go() { true; }; go test ./...`,
		`PATH=./fake:$PATH go test ./...`,
		`export PATH=/tmp/bin:$PATH; go test ./...`,
		`alias go=true; go test ./...`,
		// does not parse: never evidence
		`go test ./... "`,
		`go test ./... && (`,
	}
	for _, pat := range []string{galleryTests, prototypeTests} {
		m := Matcher{ToolName: "Bash", CommandMatch: MustPattern(pat), ExitCode: loop.IntPtr(0)}
		for _, cmd := range escapes {
			if m.Matches(bashResult(cmd, 0), nil, "") {
				t.Errorf("pattern %s: %q exiting 0 counted as evidence", pat, cmd)
			}
		}
	}
}

// TestEvidenceStillEarned: the ordinary spellings of a test run exiting 0 count
// under the gallery's pattern, and those the Python original's pattern matched
// still count under it.
func TestEvidenceStillEarned(t *testing.T) {
	ordinary := []string{
		`go test ./...`,
		`cd pkg && go test ./...`,
		`make test`,
		`npm test`,
		`pytest -q`,
		`GOFLAGS=-count=1 go test ./...`,
		`go test ./... -run X`,
		`time go test ./...`,
		`set -o pipefail; go test ./... | tee out.txt`,
		`set -euo pipefail; go test ./... 2>&1 | tail -5`,
		`go test -v -race -count=1 ./...`,
		`go test -run 'TestA|TestB' ./loop/...`,
		`npm run test`,
		`yarn test`,
		`pnpm test`,
		`cargo test --all`,
		`make check`,
		`python -m pytest -q tests/`,
		`python3 -m pytest`,
		`(cd pkg && go test ./...)`,
		`go test ./... 2>&1`,
		`go test ./... > out.txt 2>&1`,
		`env CGO_ENABLED=0 go test ./...`,
		`timeout 600 go test ./...`,
		`bash -c 'go test ./...'`,
		`bash -o pipefail -c 'go test ./... | tee out.txt'`,
		`go vet ./... && go test ./...`,
		`go test ./... && echo ok`,
		`go test ./... || exit 1`,
		`go test ./...; exit $?`,
		"cd /work/main\ngo test ./...",
		`"go" test ./...`,
		`uv run pytest`,
	}
	m := Matcher{ToolName: "Bash", CommandMatch: MustPattern(galleryTests), ExitCode: loop.IntPtr(0)}
	proto := Matcher{ToolName: "Bash", CommandMatch: MustPattern(prototypeTests), ExitCode: loop.IntPtr(0)}
	for _, cmd := range ordinary {
		if !m.Matches(bashResult(cmd, 0), nil, "") {
			t.Errorf("%q exiting 0 is no longer evidence", cmd)
		}
		// What the Python original's pattern found in the whole line, it
		// finds in the command that ran.
		if proto.CommandMatch.MatchString(cmd) && !proto.Matches(bashResult(cmd, 0), nil, "") {
			t.Errorf("%q exiting 0 is no longer evidence under the Python original's pattern", cmd)
		}
	}
	for _, cmd := range []string{`git diff --check`, `ruff check && mypy .`, `npm run lint`} {
		if !proto.Matches(bashResult(cmd, 0), nil, "") {
			t.Errorf("%q exiting 0 is no longer evidence under the Python original's pattern", cmd)
		}
	}
}

// TestFailureEvidence: a failing status counts for the commands that may have
// produced it, and not for a test run whose failure another command hid.
func TestFailureEvidence(t *testing.T) {
	m := Matcher{ToolName: "Bash", CommandMatch: MustPattern(galleryTests), ExitCodeNot: loop.IntPtr(0)}
	for _, c := range []struct {
		cmd  string
		want bool
	}{
		{`go test ./...`, true},
		{`cd pkg && go test ./...`, true},
		{`go test ./... || exit 1`, true},
		{`set -o pipefail; go test ./... | tee out.txt`, true},
		{`go test ./... | tail -5; false`, false},
		{`echo "go test" && false`, false},
	} {
		if got := m.Matches(bashResult(c.cmd, 1), nil, ""); got != c.want {
			t.Errorf("%q exiting 1: failure evidence %v, want %v", c.cmd, got, c.want)
		}
	}
}

// TestCommandMatchWithoutExitCodeSeesTheWholeLine: a rule with no exit code
// (a guardrail) still searches the whole command line.
func TestCommandMatchWithoutExitCodeSeesTheWholeLine(t *testing.T) {
	m := Matcher{ToolName: "Bash", CommandMatch: MustPattern(`rm -rf`)}
	if !m.Matches(bashResult(`echo x || rm -rf build`, 0), nil, "") {
		t.Error("a guardrail pattern no longer sees the whole line")
	}
}
