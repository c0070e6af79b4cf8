package shell

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// project makes a temp project with the loop's files, a file symlink and a
// folder symlink to them, a home with a user-level install, and a .git.
func project(t *testing.T) (Env, []string) {
	t.Helper()
	base := t.TempDir()
	root, home := filepath.Join(base, "proj"), filepath.Join(base, "home")
	for _, f := range []string{
		"proj/hook-loop.json", "proj/package.json", "proj/notes.json", "proj/.hook-loop/events.jsonl",
		"proj/.claude/settings.json", "proj/.codex/hooks.json", "proj/build/x.o", "proj/sub/a.txt",
		"proj/.git/HEAD", "home/.claude/settings.json", "proj/a.txt",
	} {
		p := filepath.Join(base, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// cfg.json -> hook-loop.json, state -> .hook-loop
	if err := os.Symlink("hook-loop.json", filepath.Join(root, "cfg.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, ".hook-loop"), filepath.Join(root, "sub", "state")); err != nil {
		t.Fatal(err)
	}
	// ~/codex -> proj/.codex: ~/codex/.. is the project, not the home.
	if err := os.Symlink(filepath.Join(root, ".codex"), filepath.Join(home, "codex")); err != nil {
		t.Fatal(err)
	}
	protected := []string{
		filepath.Join(root, "hook-loop.json"), filepath.Join(root, ".hook-loop") + "/",
		filepath.Join(root, ".codex") + "/", filepath.Join(root, ".claude", "settings.json"),
		filepath.Join(home, ".claude", "settings.json"),
	}
	return Env{Dir: root, Root: root, Home: home, Vars: map[string]string{"HOME": home, "PWD": root}}, protected
}

// verdict is the protected entry a command touches, relative to the project
// (or ~ for home), by a write or by inline code naming it; "" when none.
func verdict(an Analysis, env Env, protected []string) string {
	rel := func(p string) string {
		if r, ok := strings.CutPrefix(p, env.Root+"/"); ok {
			return r
		}
		return "~" + strings.TrimPrefix(p, env.Home)
	}
	if _, p, ok := an.Hit(protected); ok {
		return rel(p)
	}
	for _, in := range an.Inline {
		if p, ok := NamesPath(in, protected); ok {
			return "inline:" + rel(p)
		}
	}
	return ""
}

// TestAnalyzeIssue13: each known way of writing the loop file around a plain
// name match touches the protected file it aims at, and each allowed example
// touches none.
func TestAnalyzeIssue13(t *testing.T) {
	env, protected := project(t)
	cases := []struct {
		cmd, want string
		uncertain bool
	}{
		// Globs, braces, expansions of the working directory and home.
		{cmd: "rm *.json", want: "hook-loop.json"},
		{cmd: "rm -f ./*", want: "hook-loop.json"},
		{cmd: "mv hook-loop.json{,.bak}", want: "hook-loop.json"},
		{cmd: "rm {hook-loop,package}.json", want: "hook-loop.json"},
		{cmd: "rm $PWD/hook-loop.json", want: "hook-loop.json"},
		{cmd: "rm \"$(pwd)/hook-loop.json\"", want: "hook-loop.json"},
		{cmd: "rm `pwd`/hook-loop.json", want: "hook-loop.json"},
		{cmd: "echo {} > ~/.claude/settings.json", want: "~/.claude/settings.json"},
		{cmd: "rm $HOME/.claude/settings.json", want: "~/.claude/settings.json"},
		{cmd: "f=hook-loop.json; rm $f", want: "hook-loop.json"},
		{cmd: "for f in *.json; do rm \"$f\"; done", want: "hook-loop.json"},
		// Directories through lists, subshells and the pushd stack.
		{cmd: "cd .hook-loop && rm events.jsonl", want: ".hook-loop/"},
		{cmd: "cd sub; rm ../hook-loop.json", want: "hook-loop.json"},
		{cmd: "(cd .hook-loop; rm -f events.jsonl)", want: ".hook-loop/"},
		{cmd: "pushd .hook-loop && rm events.jsonl && popd", want: ".hook-loop/"},
		{cmd: "pushd sub && popd && rm hook-loop.json", want: "hook-loop.json"},
		{cmd: "cd sub && cd - && rm hook-loop.json", want: "hook-loop.json"},
		// Symlinks on existing prefixes, and a symlinked file.
		{cmd: "rm sub/state/events.jsonl", want: ".hook-loop/"},
		{cmd: "echo x > cfg.json", want: "hook-loop.json"},
		{cmd: "rm ~/codex/../hook-loop.json", want: "hook-loop.json"},
		{cmd: "cd sub/state && rm ../hook-loop.json", want: "hook-loop.json"},
		{cmd: "f=hook-loop.json; f=x.txt echo; rm $f", want: "hook-loop.json"},
		// Write operands of file tools.
		{cmd: "perl -pi -e 's/a/b/' hook-loop.json", want: "hook-loop.json"},
		{cmd: "perl -i.bak -pe 's/a/b/' hook-loop.json", want: "hook-loop.json"},
		{cmd: "ruby -i -pe 'x' hook-loop.json", want: "hook-loop.json"},
		{cmd: "sed -i 's/a/b/' hook-loop.json", want: "hook-loop.json"},
		{cmd: "sed -Ei 's/a/b/' hook-loop.json", want: "hook-loop.json"},
		{cmd: "sed -i.bak -e 's/a/b/' hook-loop.json", want: "hook-loop.json"},
		{cmd: "sed --in-place 's/a/b/' hook-loop.json", want: "hook-loop.json"},
		{cmd: "sed --in-place=.orig -e s/a/b/ hook-loop.json", want: "hook-loop.json"},
		{cmd: "awk -i inplace '{print}' hook-loop.json", want: "hook-loop.json"},
		{cmd: "git checkout -- hook-loop.json", want: "hook-loop.json"},
		{cmd: "git checkout hook-loop.json", want: "hook-loop.json"},
		{cmd: "git checkout -f main", want: "hook-loop.json"},
		{cmd: "git checkout .", want: "hook-loop.json"},
		{cmd: "git restore hook-loop.json", want: "hook-loop.json"},
		{cmd: "git rm hook-loop.json", want: "hook-loop.json"},
		{cmd: "git mv hook-loop.json old.json", want: "hook-loop.json"},
		{cmd: "git stash -u", want: "hook-loop.json"},
		{cmd: "git stash push --include-untracked", want: "hook-loop.json"},
		{cmd: "git stash --all", want: "hook-loop.json"},
		{cmd: "git clean -fdx", want: "hook-loop.json"},
		{cmd: "git -C sub clean -fdx ..", want: "hook-loop.json"},
		{cmd: "rsync -a /tmp/evil/ .hook-loop/", want: ".hook-loop/"},
		{cmd: "cp --target-directory=.hook-loop a.txt", want: ".hook-loop/"},
		{cmd: "cp -t .codex a.txt", want: ".codex/"},
		{cmd: "cp a.txt hook-loop.json", want: "hook-loop.json"},
		{cmd: "install -m 644 a.txt hook-loop.json", want: "hook-loop.json"},
		{cmd: "dd if=/dev/zero of=hook-loop.json bs=1 count=0", want: "hook-loop.json"},
		{cmd: "truncate -s 0 hook-loop.json", want: "hook-loop.json"},
		{cmd: "ln -sf /dev/null hook-loop.json", want: "hook-loop.json"},
		{cmd: "chmod 000 hook-loop.json", want: "hook-loop.json"},
		{cmd: "echo x | tee -a hook-loop.json", want: "hook-loop.json"},
		{cmd: "echo x >| hook-loop.json", want: "hook-loop.json"},
		{cmd: "echo x &> hook-loop.json", want: "hook-loop.json"},
		{cmd: "echo x >> .hook-loop/events.jsonl", want: ".hook-loop/"},
		{cmd: "find . -name '*.json' -delete", want: "hook-loop.json"},
		{cmd: "find . -name hook-loop.json -exec rm {} \\;", want: "hook-loop.json"},
		{cmd: "find . -type f -exec mv {} /tmp/ +", want: "hook-loop.json"},
		{cmd: "find .hook-loop -delete", want: ".hook-loop/"},
		// Folders as folders, wrappers.
		{cmd: "mv .codex x", want: ".codex/"},
		{cmd: "rm -f .claude/*", want: ".claude/settings.json"},
		{cmd: "rm -rf .hook-loop", want: ".hook-loop/"},
		{cmd: "\\rm -rf .hook-loop", want: ".hook-loop/"},
		{cmd: "command rm -rf .hook-loop", want: ".hook-loop/"},
		{cmd: "busybox rm hook-loop.json", want: "hook-loop.json"},
		{cmd: "toybox mv hook-loop.json x", want: "hook-loop.json"},
		{cmd: `python3 -c "import os; open(os.path.expanduser('~/.claude/settings.json'),'w').write('{}')"`, want: "inline:.claude/settings.json"}, // the suffix match: refused, the first protected settings file named
		{cmd: "sudo -u root rm hook-loop.json", want: "hook-loop.json"},
		{cmd: "mv . ../elsewhere", want: "hook-loop.json"},
		// Shell strings and interpreters' inline code.
		{cmd: "bash -c 'rm hook-loop.json'", want: "hook-loop.json"},
		{cmd: "sh -c \"cd .hook-loop && rm events.jsonl\"", want: ".hook-loop/"},
		{cmd: "eval 'rm hook-loop.json'", want: "hook-loop.json"},
		{cmd: "bash <<'EOF'\nrm hook-loop.json\nEOF", want: "hook-loop.json"},
		{cmd: `python3 -c "import os; os.remove('hook-loop.json')"`, want: "inline:hook-loop.json"},
		{cmd: `python3 -c "import shutil; shutil.rmtree('.hook-loop')"`, want: "inline:.hook-loop/"},
		{cmd: `python3 -c "import glob,os; [os.remove(f) for f in glob.glob('*.json')]"`, want: "inline:hook-loop.json"},
		{cmd: "python3 - <<'EOF'\nopen('hook-loop.json','w').write('')\nEOF", want: "inline:hook-loop.json"},
		{cmd: "python3 <<'EOF'\nimport os\nos.unlink('.codex/hooks.json')\nEOF", want: "inline:.codex/"},
		{cmd: `echo "import os; os.remove('hook-loop.json')" | python3`, want: "inline:hook-loop.json"},
		{cmd: "cat <<'EOF' | python3 -\nimport os\nos.remove('hook-loop.json')\nEOF", want: "inline:hook-loop.json"},
		{cmd: "echo 'rm -rf .hook-loop' | bash", want: ".hook-loop/"},
		{cmd: `node -e "require('fs').unlinkSync('hook-loop.json')"`, want: "inline:hook-loop.json"},
		{cmd: `perl -e 'unlink "hook-loop.json"'`, want: "inline:hook-loop.json"},
		{cmd: `ruby -e 'File.delete("hook-loop.json")'`, want: "inline:hook-loop.json"},
		{cmd: "cd sub && python3 -c 'import os; os.remove(\"../hook-loop.json\")'", want: "inline:hook-loop.json"},
		// Uncertain: operands nobody can read from the line.
		{cmd: "ls | xargs rm", uncertain: true},
		{cmd: "rm \"$UNSET_VAR\"/x", uncertain: true},
		{cmd: "rm $(cat list.txt)", uncertain: true},
		{cmd: "cat script.py | python3", uncertain: true},
		{cmd: "tar xzf /tmp/a.tgz", uncertain: true},
		{cmd: "curl -so hook-loop.json http://127.0.0.1/x", want: "hook-loop.json"},
		{cmd: "wget -O .codex/hooks.json http://127.0.0.1/x", want: ".codex/"},
		// Allowed: reading, and writing elsewhere.
		{cmd: "cat hook-loop.json .hook-loop/events.jsonl ~/.claude/settings.json"},
		{cmd: "jq . hook-loop.json > /tmp/out.json"},
		{cmd: "grep -r x .codex .claude | head"},
		{cmd: "rm -f build/x.o"},
		{cmd: "git stash list"},
		{cmd: "git status && git diff -- hook-loop.json"},
		{cmd: "git checkout main"},
		{cmd: "python3 -c 'print(1)'"},
		{cmd: "hook-loop status"},
		{cmd: "cp hook-loop.json /tmp/copy.json"},
		{cmd: "cp a.txt sub/"},
		{cmd: "mv a.txt sub/"},
		{cmd: "sed 's/a/b/' hook-loop.json"},
		{cmd: "sed -n '1,5p' hook-loop.json"},
		{cmd: "perl -ne 'print' hook-loop.json"},
		{cmd: "awk '{print}' hook-loop.json"},
		{cmd: "find . -name '*.o' -delete"},
		{cmd: "find . -name '*.json' -print"},
		{cmd: "cd sub && rm a.txt"},
		{cmd: "(cd build; rm x.o); ls"},
		{cmd: "rsync -a .hook-loop/ /tmp/backup/"},
		{cmd: "echo hi > sub/out.txt 2>&1"},
		{cmd: "dd if=hook-loop.json of=/tmp/copy"},
		{cmd: "tar czf /tmp/b.tgz .hook-loop"},
		{cmd: "f=a.txt; f=hook-loop.json rm $f"},
		{cmd: "rm ~/hook-loop.json"},
		{cmd: "python3 --version && node --version && bash --version && perl -v"},
		{cmd: "curl -s http://127.0.0.1/x -o /tmp/x"},
		{cmd: "bash -c 'cat hook-loop.json; echo ok > /tmp/log'"},
		{cmd: "awk '{print $1}' hook-loop.json | sort"},
		{cmd: "git commit -m \"$(date)\" && sed \"s/$X/y/\" a.txt"},
		{cmd: "git checkout -b feature && git add . && git commit -qm x"},
		{cmd: "mkdir -p build && cp a.txt build/ && rm -rf node_modules build"},
		{cmd: "go test ./... 2>&1 | tail -20 > /tmp/test.log"},
		{cmd: "sed -i 's/a/b/' sub/*.txt"},
		{cmd: "for f in sub/*.txt; do mv \"$f\" \"$f.bak\"; done"},
	}
	for _, c := range cases {
		an := Analyze(c.cmd, env)
		if got := verdict(an, env, protected); got != c.want {
			t.Errorf("%q: touches %q, want %q\n%+v", c.cmd, got, c.want, an)
		}
		if c.uncertain != (len(an.Uncertain) > 0) {
			t.Errorf("%q: uncertain %q, want %v", c.cmd, an.Uncertain, c.uncertain)
		}
	}
}

// TestAnalyzeTargets pins the exact targets of a few commands: the moved
// file and its backup, the symlink and its target, the find matches.
func TestAnalyzeTargets(t *testing.T) {
	env, _ := project(t)
	r := env.Root
	cases := []struct {
		cmd  string
		want []string
	}{
		{"mv hook-loop.json{,.bak}", []string{r + "/hook-loop.json", r + "/hook-loop.json.bak"}},
		{"echo x > cfg.json", []string{r + "/hook-loop.json", r + "/cfg.json"}},
		{"find . -name '*.json' -delete", []string{r + "/cfg.json", r + "/hook-loop.json", r + "/notes.json", r + "/package.json", r + "/.claude/settings.json", r + "/.codex/hooks.json"}},
		{"cd sub && rm a.txt; rm x", []string{r + "/sub/a.txt", r + "/sub/x"}},
		{"cd sub && (cd ..; rm a.txt); rm x", []string{r + "/a.txt", r + "/sub/x"}},
		{"cp a.txt notes.json sub", []string{r + "/sub/a.txt", r + "/sub/notes.json"}},
		{"echo x > /dev/null; ls 2>&1 >&2", nil},
	}
	for _, c := range cases {
		an := Analyze(c.cmd, env)
		var got []string
		for _, w := range an.Writes {
			got = append(got, w.Path)
		}
		slices.Sort(got)
		slices.Sort(c.want)
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: writes %q, want %q", c.cmd, got, c.want)
		}
	}
}

// TestAnalyzeCaps: a brace expansion past maxFields and a deeply nested line
// are marked uncertain, and still report what they saw.
func TestAnalyzeCaps(t *testing.T) {
	env, protected := project(t)
	an := Analyze("rm hook-loop.json x{1..100000}", env)
	if len(an.Uncertain) == 0 || verdict(an, env, protected) != "hook-loop.json" {
		t.Errorf("brace cap: %q %d writes", an.Uncertain, len(an.Writes))
	}
	// A glob that cannot be read (the read cap, a permission error) stands
	// for everything under its fixed prefix.
	denied := env
	denied.FS = denyFS{}
	an = Analyze("rm -f */x", denied)
	if len(an.Uncertain) == 0 || verdict(an, env, protected) != "hook-loop.json" {
		t.Errorf("unreadable glob: %q %+v", an.Uncertain, an.Writes)
	}
	deep := strings.Repeat("(", 10000) + "rm hook-loop.json" + strings.Repeat(")", 10000)
	an = Analyze(deep, env)
	if len(an.Uncertain) == 0 || verdict(an, env, protected) != "hook-loop.json" {
		t.Errorf("deep nesting: %q %+v", an.Uncertain, an.Writes)
	}
}

// TestAnalyzePathCap: past maxPaths the paths of a line are not resolved (one
// statement of 450,000 redirects took longer than the harness waits for the
// hook) and the analysis is uncertain; what came before is still judged.
func TestAnalyzePathCap(t *testing.T) {
	env, protected := project(t)
	var b strings.Builder
	b.WriteString("echo >hook-loop.json")
	for i := range maxPaths {
		fmt.Fprintf(&b, " >f%d", i)
	}
	an := Analyze(b.String(), env)
	if !slices.Contains(an.Uncertain, "more files than analysed") || verdict(an, env, protected) != "hook-loop.json" {
		t.Errorf("redirects: %q, %d writes", an.Uncertain, len(an.Writes))
	}
	if len(an.Writes) > maxPaths {
		t.Errorf("redirects: %d writes resolved, want at most %d", len(an.Writes), maxPaths)
	}
	an = Analyze("cat"+strings.Repeat(" a.txt", maxPaths+1), env)
	if !slices.Contains(an.Uncertain, "more files than analysed") {
		t.Errorf("names: %q", an.Uncertain)
	}
}

func TestResolve(t *testing.T) {
	env, _ := project(t)
	r := env.Root
	got := Resolve("cfg.json", env)
	if !slices.Equal(got, []string{r + "/hook-loop.json", r + "/cfg.json"}) {
		t.Errorf("Resolve(cfg.json) = %q", got)
	}
	if got := Resolve(r+"/sub/state/events.jsonl", env); !slices.Equal(got, []string{r + "/.hook-loop/events.jsonl"}) {
		t.Errorf("Resolve(sub/state/events.jsonl) = %q", got)
	}
}

// TestAnalyzeRoot: the file-system root as a target (a slice bound bug once).
func TestAnalyzeRoot(t *testing.T) {
	env, protected := project(t)
	for _, c := range []string{"rm -rf /", "rm -rf //", "cd / && rm -rf .", "find / -maxdepth 0 -delete"} {
		if got := verdict(Analyze(c, env), env, protected); got == "" {
			t.Errorf("%q touches nothing protected", c)
		}
	}
}

// denyFS refuses every directory listing.
type denyFS struct{ OSFS }

func (denyFS) ReadDir(string) ([]fs.DirEntry, error) { return nil, fs.ErrPermission }
