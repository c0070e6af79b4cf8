package guard

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hook-loop/hook-loop/loop"
)

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

// secretsProject is launchProject with a key and a pinned loop under the
// state folder in the user's home.
func secretsProject(t *testing.T, failClosed bool) *Policy {
	t.Helper()
	p := launchProject(t, false, failClosed)
	state := filepath.Join(p.Home, ".local", "state", "hook-loop")
	for _, f := range []string{"keys/k1", "pins/p1.json", "projects/x/events.jsonl"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(state, f)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(state, f), []byte("k"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p.SecretPaths = []string{filepath.Join(state, "keys") + "/", filepath.Join(state, "pins") + "/"}
	return p
}

// TestSecretsRefusedToFolderWalkers: a program that is not a known reader
// and names a folder holding a secret reads the whole tree.
func TestSecretsRefusedToFolderWalkers(t *testing.T) {
	p := secretsProject(t, false)
	for _, cmd := range []string{
		"find ~/.local/state -type f -exec cat {} +", "rsync -a ~/.local/state/ /tmp/leak/",
		"zip -r /tmp/x.zip ~/.local/state", "tar -czf /tmp/x.tgz ~/.local/state/hook-loop",
		"find / -path '*keys*' -exec cat {} +", "python3 walk.py ~",
	} {
		wantRefused(t, p, cmd)
	}
	for _, cmd := range []string{"find . -name '*.go'", "zip -r /tmp/x.zip sub", "ls ~/.local/state",
		"cat ~/.local/state/hook-loop/projects/x/events.jsonl", "tr / _ < a.txt", "awk -F/ '{print $1}' a.txt"} {
		if got := p.bash(cmd); got.Blocked {
			t.Errorf("%s: refused (%s)", cmd, got.Reason)
		}
	}
}

// TestSecretWordWithUnknownExpansion: a reader's word made as the command
// runs may name a secret: a note, and a refusal under fail_closed.
func TestSecretWordWithUnknownExpansion(t *testing.T) {
	cmd := `cat "$(printf %s ~/.local/state/hook-loop/ke)ys/k1"`
	if got := secretsProject(t, true).bash(cmd); !got.Blocked {
		t.Errorf("%s under fail_closed: allowed", cmd)
	}
	if got := secretsProject(t, false).bash(cmd); got.Blocked || got.Note == "" {
		t.Errorf("%s: %+v, want allowed with a note", cmd, got)
	}
	// Without secrets, a reader's unknown word stays unremarked.
	p := launchProject(t, false, true)
	if got := p.bash(`cat "$(printf %s a.tx)t"`); got.Blocked {
		t.Errorf("cat of a computed name without secrets: refused (%s)", got.Reason)
	}
}

// TestUnknownWordsOfNonReadersStayAllowed: a commit message made by a
// command substitution is no reason to refuse under fail_closed.
func TestUnknownWordsOfNonReadersStayAllowed(t *testing.T) {
	p := secretsProject(t, true)
	for _, cmd := range []string{`git commit -m "$(printf 'fix: x')"`, `echo "$(date)"`} {
		if got := p.bash(cmd); got.Blocked {
			t.Errorf("%s: refused (%s)", cmd, got.Reason)
		}
	}
}

// TestLostDirRelativeWords: after a cd to a folder known only as the
// command runs, a relative word of a non-reader may name a protected file.
func TestLostDirRelativeWords(t *testing.T) {
	cmd := `cd "$(printf %s .clau)de" && gzip settings.json`
	wantRefused(t, launchProject(t, false, false), cmd)
	cmd = `cd "$(printf %s .clau)de" && gzip other.json`
	wantRefused(t, launchProject(t, false, true), cmd)
	if got := launchProject(t, false, false).bash(cmd); got.Blocked || got.Note == "" {
		t.Errorf("%s: %+v, want allowed with a note", cmd, got)
	}
	if got := launchProject(t, false, true).bash(`cd "$(printf %s su)b" && cat b.txt`); got.Blocked {
		t.Errorf("cat after a computed cd: refused (%s)", got.Reason)
	}
	// With secrets, a reader's relative word there may name a key.
	wantRefused(t, secretsProject(t, true), `cd "$(printf %s ~/.local/state/hook-loop/ke)ys" && cat k1`)
}

// TestUnzipListOnlyBeforeArchive: only options before the archive make
// unzip list; after it, -x -l leaves out a member named -l and extracts the
// rest, which is uncertain (refused under fail_closed).
func TestUnzipListOnlyBeforeArchive(t *testing.T) {
	p := launchProject(t, false, true)
	for _, cmd := range []string{"cd .claude && unzip ../evil.zip -x -l", "cd .claude && unzip ../evil.zip -l", "unzip evil.zip -x -t"} {
		wantRefused(t, p, cmd)
	}
	for _, cmd := range []string{"cd .claude && unzip -l ../evil.zip", "unzip -d /tmp/x -l evil.zip"} {
		if got := p.bash(cmd); got.Blocked {
			t.Errorf("%s: refused (%s)", cmd, got.Reason)
		}
	}
}

// TestCommandDirStartsRelativePaths: a command that runs in the directory
// its tool names (CommandDir, absolute or relative to Cwd) writes its
// relative paths there, as the shell will, not in the session's directory.
func TestCommandDirStartsRelativePaths(t *testing.T) {
	p := launchProject(t, false, false)
	for _, tt := range []struct {
		dir, cmd string
		refused  bool
	}{
		{filepath.Join(p.Root, ".hook-loop"), "echo > events.jsonl", true},
		{".hook-loop", "rm events.jsonl", true},
		{".claude", "cp /dev/null settings.json", true},
		{"sub", "echo > ../hook-loop.json", true},
		{"sub", "echo > hook-loop.json", false},
		{"sub", "echo > b.txt", false},
	} {
		ev := loop.HookEvent{Name: loop.EventPreToolUse, ToolName: "Bash", Cwd: p.Root, CommandDir: tt.dir, Command: tt.cmd}
		if got := p.Check(&ev, p.Read(&ev), "a"); got.Blocked != tt.refused {
			t.Errorf("%s in %s: refused %v, want %v (%s)", tt.cmd, tt.dir, got.Blocked, tt.refused, got.Reason)
		}
	}
}

// TestUnseenInputRefused: a call that opens input no hook shows (a Codex
// terminal session fed by write_stdin) is refused, even a harmless-looking
// one and in a loop that is not fail_closed.
func TestUnseenInputRefused(t *testing.T) {
	p := launchProject(t, false, false)
	ev := loop.HookEvent{Name: loop.EventPreToolUse, ToolName: "Bash", Cwd: p.Root, Command: "bash", Unseen: "it starts a terminal session"}
	if got := p.Check(&ev, p.Read(&ev), "a"); !got.Blocked || got.Rule != "unseen_input" {
		t.Errorf("tty bash: %+v", got)
	}
	ev.Unseen = ""
	if got := p.Check(&ev, p.Read(&ev), "a"); got.Blocked {
		t.Errorf("bash without a terminal refused: %s", got.Reason)
	}
}

// TestTranscriptProtected: the session's transcript, which adapters read
// a call's exit code, workdir and terminal from, is not the agent's to
// change, move (with its folder) or replace; reading it stays allowed.
func TestTranscriptProtected(t *testing.T) {
	p := launchProject(t, false, false)
	dir := filepath.Join(p.Home, ".codex", "sessions", "2026")
	tr := filepath.Join(dir, "rollout-1.jsonl")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tr, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		cmd     string
		refused bool
	}{
		{"mv " + tr + " /tmp/x", true},
		{"echo '{}' >> " + tr, true},
		{"mv " + dir + " /tmp/y", true},
		{"ln -sf /dev/null " + tr, true},
		{"tail -n 5 " + tr, false},
		{"echo x > " + filepath.Join(dir, "other.jsonl"), false},
	} {
		ev := loop.HookEvent{Name: loop.EventPreToolUse, ToolName: "Bash", Cwd: p.Root, Command: tt.cmd, TranscriptPath: tr}
		if got := p.Check(&ev, p.Read(&ev), "a"); got.Blocked != tt.refused {
			t.Errorf("%s: refused %v, want %v (%s)", tt.cmd, got.Blocked, tt.refused, got.Reason)
		}
	}
}
