package guard

import (
	"strings"
	"testing"
)

// TestGitTreeWriteReasonNamesFiles: the refusal of a git command that
// rewrites the whole tree says how to do the same to named files.
func TestGitTreeWriteReasonNamesFiles(t *testing.T) {
	p := launchProject(t, false, false)
	for cmd, want := range map[string]string{
		"git stash":          "git stash push -- FILE",
		"git stash -u":       "git stash push -- FILE",
		"git stash pop":      "git restore --source=stash@{0} FILE",
		"git reset --hard":   "git restore FILE",
		"git checkout .":     "git checkout -- FILE",
		"git restore .":      "git restore FILE",
		"git checkout -f":    "git checkout -- FILE",
		"git switch -f main": "git switch` without -f",
		"git clean -fdx":     "git clean -f -- FILE",
		"git rm -r .":        "git rm -- FILE",
	} {
		got := p.bash(cmd)
		if !got.Blocked || !strings.Contains(got.Reason, want) || !strings.Contains(got.Reason, "hook-loop.json") {
			t.Errorf("%s: %+v, want refused naming hook-loop.json and %q", cmd, got, want)
		}
	}
}
