package guard

import "testing"

// TestGitShellValuesJudged: values git runs through a shell (an external
// diff, a "!" alias, -c diff.external) are judged as the command they are,
// however they are set.
func TestGitShellValuesJudged(t *testing.T) {
	p := launchProject(t, false, true)
	wantRefused(t, p, "hook-loop claude uninstall --write")
	for _, run := range []string{"gzip .claude/settings.json;:", "hook-loop claude uninstall --write;:"} {
		for _, cmd := range []string{
			"GIT_EXTERNAL_DIFF='" + run + "' git diff",
			"env GIT_EXTERNAL_DIFF='" + run + "' git diff",
			"env -u X GIT_EXTERNAL_DIFF='" + run + "' git diff",
			"export GIT_EXTERNAL_DIFF='" + run + "'; git diff",
			"declare -x GIT_EXTERNAL_DIFF='" + run + "'; git diff",
			"git -c diff.external='" + run + "' diff",
			"git -c alias.x='!" + run + "' x",
			"X='" + run + "' git --config-env=diff.external=X diff",
			"X='" + run + "' git --config-env diff.external=X diff",
		} {
			wantRefused(t, p, cmd)
		}
	}
	for _, cmd := range []string{"git -c core.pager=less diff", "GIT_PAGER=cat git log", "git -c color.ui=never status"} {
		if got := p.bash(cmd); got.Blocked {
			t.Errorf("%s: refused (%s)", cmd, got.Reason)
		}
	}
}
