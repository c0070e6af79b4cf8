package guard

import "testing"

// TestGitStashWithPathspecJudgedByPaths: a stash that names its paths only
// resets those, so it is judged by them, as git checkout -- FILES is.
func TestGitStashWithPathspecJudgedByPaths(t *testing.T) {
	for _, failClosed := range []bool{false, true} {
		p := launchProject(t, false, failClosed)
		for _, cmd := range []string{
			"git stash push -- main.go", "git stash push main.go", "git stash -- main.go", "git stash push -m wip -- main.go sub/b.txt",
			"git stash push -u -- main.go", "git stash push --keep-index main.go", "git stash push -p -- main.go",
			"git -C sub stash push -- b.txt", "cd sub && git stash push b.txt", "env git stash push -- main.go",
			"git stash push --message=wip main.go", "git stash push -- sub", "git stash list", "git stash show -p",
		} {
			if got := p.bash(cmd); got.Blocked {
				t.Errorf("fail_closed=%v: %s: refused (%s)", failClosed, cmd, got.Reason)
			}
		}
	}
}

// TestGitStashOfEverythingRefused: a stash of every change, one restoring a
// stash, and one whose paths reach the loop's files stay refused.
func TestGitStashOfEverythingRefused(t *testing.T) {
	p := launchProject(t, false, false)
	for _, cmd := range []string{
		"git stash", "git stash -u", "git stash pop", "git stash apply", "git stash apply stash@{0}", "git stash branch x",
		"git stash save wip", "git stash push", "git stash push -m msg", "git stash push -m main.go", "git stash push --message main.go",
		"git stash -q pop", "git stash pop -- main.go", "git stash apply -- main.go", "git stash foo -- main.go", "git stash -p",
		"git stash push --pathspec-from-file=files.txt", "git stash push --pathspec-from-file files.txt",
		"git stash push -- .", "git stash push -- hook-loop.json", "git stash push -- main.go hook-loop.json",
		"git stash push main.go .claude/settings.json", "git stash push -- ':!main.go'", "git stash push -- '*.json'",
		"git stash push -- .claude", "git stash push -- sub/..", "cd sub && git stash push -- ..", `git stash push -- "$PWD"`,
		"git stash push -- ~/../proj/hook-loop.json", "git stash -m x -- .hook-loop", "nice git stash push -- hook-loop.json",
		"bash -c 'git stash push -- hook-loop.json'", "git -C .claude stash push -- settings.json",
		"GIT_ICASE_PATHSPECS=1 git stash push -- HOOK-LOOP.JSON",
	} {
		wantRefused(t, p, cmd)
	}
}

// TestGitAddCommitOfLoopFilesAllowed: git add and git commit copy the
// files they name into the repository and leave them as they are.
func TestGitAddCommitOfLoopFilesAllowed(t *testing.T) {
	for _, failClosed := range []bool{false, true} {
		p := launchProject(t, false, failClosed)
		for _, cmd := range []string{
			"git add hook-loop.json", "git add .claude/settings.json main.go", "git commit -m x hook-loop.json",
			"git add -f .hook-loop/events.jsonl", "git commit -m 'add loop' -- hook-loop.json .claude/settings.json",
		} {
			if got := p.bash(cmd); got.Blocked {
				t.Errorf("fail_closed=%v: %s: refused (%s)", failClosed, cmd, got.Reason)
			}
		}
	}
	p := launchProject(t, false, false)
	for _, cmd := range []string{
		"git -c core.fsmonitor='rm hook-loop.json' add hook-loop.json", "GIT_EDITOR='rm hook-loop.json' git commit hook-loop.json",
		"git add hook-loop.json && rm hook-loop.json", "git commit -m x hook-loop.json > hook-loop.json",
	} {
		wantRefused(t, p, cmd)
	}
}
