package guard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/loop"
	"github.com/hook-loop/hook-loop/loop/guard/shell"
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
		wantAllowed(t, p, cmd)
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
		wantAllowed(t, p, cmd)
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
		wantAllowed(t, p, cmd)
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
		wantAllowed(t, p, cmd)
	}
}

// TestCopyDestinationSpellings: cp, mv and install write where an
// abbreviated --target-directory points, and over a folder with -T.
func TestCopyDestinationSpellings(t *testing.T) {
	p := launchProject(t, false, false)
	for _, cmd := range []string{
		"cp --target=.claude /tmp/settings.json", "cp --target .claude /tmp/settings.json", "cp --t=.claude /tmp/settings.json",
		"mv --targ=.claude /tmp/settings.json", "install --target=.claude /tmp/settings.json", "nice cp --ta .claude /tmp/settings.json",
		"cp -rT /tmp/evil .claude", "cp -a -T /tmp/evil .claude", "cp -r --no-target-directory /tmp/evil .claude",
		"cp -r --no-t /tmp/evil .claude", "cp -rT /tmp/evil .hook-loop", "env cp -rT /tmp/evil ./.claude/",
	} {
		wantRefused(t, p, cmd)
	}
	for _, cmd := range []string{"cp --target=sub a.txt", "cp -rT /tmp/x build", "cp --suf=.bak a.txt sub/"} {
		wantAllowed(t, p, cmd)
	}
}

// TestGitPathspecMagicAndCase: a magic pathspec (":!x" excludes, ":/x" is
// from the top) and pathspecs matched without regard to case may reach the
// loop's files under a name the guard cannot compare: the whole work tree.
func TestGitPathspecMagicAndCase(t *testing.T) {
	p := launchProject(t, false, false)
	for _, cmd := range []string{
		"git checkout -- ':!main.go'", "git checkout -- ':(exclude)main.go'", "git restore ':/'", "git restore ':/hook-loop.json'",
		"cd sub && git checkout -- :/hook-loop.json", "git restore ':(top)hook-loop.json'", "git restore ':(icase)HOOK-LOOP.JSON'",
		"git rm ':!x'", "git rm -- ':/.claude/settings.json'", "git --icase-pathspecs restore .CLAUDE/SETTINGS.JSON",
		"GIT_ICASE_PATHSPECS=1 git restore HOOK-LOOP.JSON", "env GIT_ICASE_PATHSPECS=1 git restore HOOK-LOOP.JSON",
		"export GIT_ICASE_PATHSPECS=1; git restore HOOK-LOOP.JSON", "nice env GIT_ICASE_PATHSPECS=1 git checkout -- HOOK-LOOP.JSON",
	} {
		wantRefused(t, p, cmd)
	}
	for _, cmd := range []string{"git restore main.go", "GIT_PAGER=cat git checkout -- main.go", "env X=1 git checkout -- main.go"} {
		wantAllowed(t, p, cmd)
	}
}

// TestSecretsNamedInCodeRefused: inline code (python -c, node -e, awk)
// naming a key, a pinned loop or a folder holding them reads them; code
// whose words only look like them does not.
func TestSecretsNamedInCodeRefused(t *testing.T) {
	p := secretsProject(t, false)
	state := filepath.Join(p.Home, ".local", "state", "hook-loop")
	k := filepath.Join(state, "keys", "k1")
	for _, cmd := range []string{
		`python3 -c "print(open('` + k + `').read())"`, `python3 -c "print(open('~/.local/state/hook-loop/keys/k1').read())"`,
		`awk 'BEGIN{while((getline l < "` + k + `")>0) print l}'`, `node -e "console.log(require('fs').readFileSync('` + k + `','utf8'))"`,
		`python3 -c "import shutil; shutil.copytree('` + state + `', '/tmp/x')"`, `python3 -c "import glob; print(glob.glob('` + state + `/k*/*'))"`,
		`ruby -e 'puts File.read("` + k + `")'`, `perl -e 'open(F, "<", "` + filepath.Join(state, "pins", "p1.json") + `"); print <F>'`,
		`cd ` + state + ` && python3 -c "print(open('keys/k1').read())"`,
	} {
		wantRefused(t, p, cmd)
	}
	for _, cmd := range []string{
		`python3 -c "import json; print(json.load(open('package.json'))['keys'])"`, `python3 -c "print('a/b'.split('/'))"`,
		`python3 -c "import os; print(os.path.expanduser('~/x'))"`, `node -e "console.log(require('path').join('/', 'tmp'))"`,
		`python3 -c "print(open('` + filepath.Join(state, "projects", "x", "events.jsonl") + `').read())"`,
	} {
		wantAllowed(t, p, cmd)
	}
}

// TestCopyBackupNamesJudged: with -b, cp, mv, ln and install rename what a
// destination held to its name plus the suffix: a write of that name.
func TestCopyBackupNamesJudged(t *testing.T) {
	p := launchProject(t, false, false)
	if err := os.WriteFile(filepath.Join(p.Root, "hook-loop"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{
		"cp -b -S .json a.txt hook-loop", "cp --backup --suffix=.json a.txt hook-loop", "mv -b -S .json a.txt hook-loop",
		"ln -sfb -S .json /tmp/x hook-loop", "install -b -S .json a.txt hook-loop", "cp --back --suf .json a.txt hook-loop",
		"SIMPLE_BACKUP_SUFFIX=.json cp -b a.txt hook-loop", "env SIMPLE_BACKUP_SUFFIX=.json cp -b a.txt hook-loop",
		"export SIMPLE_BACKUP_SUFFIX=.json; cp -b a.txt hook-loop", "cp -b -S .json a.txt sub/../hook-loop",
		"cd .claude && cp -b -S .json ../a.txt settings",
	} {
		wantRefused(t, p, cmd)
	}
	for _, cmd := range []string{"cp -b a.txt main.go", "cp --backup=numbered a.txt main.go", "mv -b a.txt sub/"} {
		wantAllowed(t, p, cmd)
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

// TestGitIndexRewritesRefused: git plumbing that rewrites the index entry of
// a loop file (update-index --cacheinfo in its comma form) or the whole index
// (read-tree, --empty included) is refused as git rm --cached is: the next
// commit, checkout or reset carries it to the files.
func TestGitIndexRewritesRefused(t *testing.T) {
	p := launchProject(t, false, false)
	for _, cmd := range []string{
		"git update-index --cacheinfo 100644,e69de29bb2d1d6434b8b29ae775ad8c2e48c5391,hook-loop.json",
		"git update-index --add --cacheinfo 100644,e69de29bb2d1d6434b8b29ae775ad8c2e48c5391,.claude/settings.json",
		"git update-index --cacheinfo 100644 e69de29bb2d1d6434b8b29ae775ad8c2e48c5391 hook-loop.json",
		"git read-tree --empty", "git read-tree HEAD~1", "git rm --cached hook-loop.json",
	} {
		wantRefused(t, p, cmd)
	}
	for _, cmd := range []string{
		"git update-index --cacheinfo 100644,e69de29bb2d1d6434b8b29ae775ad8c2e48c5391,main.go", "git update-index --refresh",
		"git read-tree -n HEAD",
	} {
		wantAllowed(t, p, cmd)
	}
}

// TestCommandDirBothReadings: a call's own directory naming ".." after a
// link is where the system's chdir takes it (Qwen Code passes it to spawn
// unresolved) or where a lexical path.resolve takes it (Gemini CLI): the
// call is refused when either reading reaches a loop file.
func TestCommandDirBothReadings(t *testing.T) {
	p := launchProject(t, false, false)
	sub := filepath.Join(p.Root, ".hook-loop", "sub")
	other := filepath.Join(t.TempDir(), "a")
	for _, d := range []string{sub, other, filepath.Join(filepath.Dir(other), ".hook-loop")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(sub, filepath.Join(p.Root, "lnk")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, filepath.Join(p.Root, "out")); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		cmd, dir string
		targets  []string
		refused  bool
	}{
		// The system reading: lnk/.. is .hook-loop.
		{"rm events.jsonl", filepath.Join(p.Root, "lnk") + "/..", nil, true},
		{"rm events.jsonl", "lnk/..", nil, true},
		{"", "lnk/..", []string{"events.jsonl"}, true},
		// The lexical reading: out/../.hook-loop is the project's.
		{"rm events.jsonl", "out/../.hook-loop", nil, true},
		{"ls", "lnk/..", nil, false},
		{"rm x", "out/..", nil, false},
	} {
		ev := loop.HookEvent{Name: loop.EventPreToolUse, ToolName: "Bash", Cwd: p.Root, Command: tt.cmd, CommandDir: tt.dir, TargetPaths: tt.targets}
		if got := p.Check(&ev, p.Read(&ev), "a"); got.Blocked != tt.refused {
			t.Errorf("%q in %q (targets %q): blocked %v, want %v (%s)", tt.cmd, tt.dir, tt.targets, got.Blocked, tt.refused, got.Reason)
		}
	}
}

// TestWritesIntoStateFolderRefused: a copy into the state folder (or over a
// folder holding it) writes the keys and pinned loops, whatever link
// options it is given; making a link in a folder holding them does not.
func TestWritesIntoStateFolderRefused(t *testing.T) {
	for _, failClosed := range []bool{false, true} {
		p := secretsProject(t, failClosed)
		for _, cmd := range []string{
			"cp -r /tmp/x/keys ~/.local/state/hook-loop", "cp -r /tmp/x/pins ~/.local/state/hook-loop",
			"cp -a /tmp/x/. ~/.local/state/hook-loop", "cp -rsf /tmp/x/keys ~/.local/state/hook-loop", "cp -r /tmp/x/.local ~",
			"cp /tmp/k ~/.local/state/hook-loop/keys", "cp -t ~/.local/state/hook-loop/pins /tmp/p.json",
			"cp -al /tmp/x/keys ~/.local/state/hook-loop", "cp -rl /tmp/x/. ~/.local/state/hook-loop",
			"mv /tmp/x/keys ~/.local/state/hook-loop", "install -D /tmp/k ~/.local/state/hook-loop/keys/k1",
			"ln -sf /tmp/k ~/.local/state/hook-loop/keys/k1", "rsync -a /tmp/x/ ~/.local/state/hook-loop/",
		} {
			if got := p.bash(cmd); !got.Blocked {
				t.Errorf("fail_closed=%v: %s: allowed", failClosed, cmd)
			}
		}
		for _, cmd := range []string{"ln -s ../foo .", "ln -s x ~/y", "cp -s /tmp/x ~/", "cp a.txt sub/", "cp -r sub /tmp/y",
			"cp -r /tmp/x ~/.local/state/other", "cp -l /tmp/x ~/"} {
			if got := p.bash(cmd); got.Blocked {
				t.Errorf("fail_closed=%v: %s: refused (%s)", failClosed, cmd, got.Reason)
			}
		}
	}
}

// TestWritesSecretJudgesWrites: a write of a secret, of a path under a
// secret folder, or of a tree holding one is found, in other cases too
// where the filesystem ignores case; a write beside them, or of a single
// folder above them, is not.
func TestWritesSecretJudgesWrites(t *testing.T) {
	p := secretsProject(t, false)
	p.folds = func(string) bool { return true }
	keys := p.SecretPaths[0]
	state := filepath.Dir(filepath.Dir(keys))
	for _, c := range []struct {
		w    shell.Target
		want bool
	}{
		{shell.Target{Path: filepath.Join(keys, "k2")}, true},
		{shell.Target{Path: filepath.Clean(keys)}, true},
		{shell.Target{Path: filepath.Join(state, "KEYS", "k2")}, true},
		{shell.Target{Path: state, Tree: true}, true},
		{shell.Target{Path: strings.ToUpper(state), Tree: true}, true},
		{shell.Target{Path: "/", Tree: true}, true},
		{shell.Target{Path: state}, false},
		{shell.Target{Path: filepath.Join(state, "projects", "x"), Tree: true}, false},
		{shell.Target{Path: filepath.Join(p.Home, "y")}, false},
	} {
		c.w.Op = "cp"
		_, got := p.writesSecret(Call{Analysis: shell.Analysis{Writes: []shell.Target{c.w}}}, p.secrets(Call{}))
		if got != c.want {
			t.Errorf("write %+v: found %v, want %v", c.w, got, c.want)
		}
	}
}

// TestCommandDirTildeIsHome: a working folder spelled from ~ is the agent's
// home where the server expands it, so a command run there is judged there
// too (cat ../keys/k1 from the state folder's projects folder).
func TestCommandDirTildeIsHome(t *testing.T) {
	p := secretsProject(t, false)
	for _, dir := range []string{"~/.local/state/hook-loop/projects", "~/.local/state/hook-loop/projects/../projects"} {
		ev := loop.HookEvent{Name: loop.EventPreToolUse, ToolName: "mcp__x__run", Cwd: p.Root, CommandDir: dir, Command: "cat ../keys/k1"}
		if got := p.Check(&ev, p.Read(&ev), "a"); !got.Blocked {
			t.Errorf("cat ../keys/k1 in %s: allowed", dir)
		}
	}
	ev := loop.HookEvent{Name: loop.EventPreToolUse, ToolName: "mcp__x__run", Cwd: p.Root, CommandDir: "~/code", Command: "cat notes.txt"}
	if got := p.Check(&ev, p.Read(&ev), "a"); got.Blocked {
		t.Errorf("cat notes.txt in ~/code: refused (%s)", got.Reason)
	}
}
