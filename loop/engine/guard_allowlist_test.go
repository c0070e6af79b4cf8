package engine_test

import (
	"fmt"
	"github.com/hook-loop/hook-loop/loop"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGuardProtectsByAllowlist: a program that is not a known reader is
// refused when it names a protected file, however it writes (issue 31's
// writers the parser does not know, links made in the same command line,
// functions, aliases, traps and generated text), while readers keep reading
// and copying out.
func TestGuardProtectsByAllowlist(t *testing.T) {
	g := newGuardProject(t, false)
	refused := []string{
		// Writers no table lists.
		"sort -o hook-loop.json a.txt", "shuf -o hook-loop.json a.txt", "uniq a.txt hook-loop.json",
		"split -l 1 a.txt .hook-loop/x", "mknod .hook-loop/events.jsonl.lock p", "link a.txt .hook-loop/x",
		"fallocate -l 1G .hook-loop/events.jsonl", "gzip hook-loop.json", "xz .hook-loop/events.jsonl",
		"zip -m x.zip hook-loop.json", "rename s/json/bak/ hook-loop.json", "ex -sc 'wq' hook-loop.json",
		"vim -es -c '%d' -c wq hook-loop.json", "ed hook-loop.json < script.ed",
		"python3 -m zipfile -e x.zip .hook-loop", "git checkout-index -f hook-loop.json",
		"git read-tree -u --reset HEAD -- hook-loop.json", "git read-tree -u --reset HEAD~0 && git checkout-index -fa",
		"git checkout-index --all --force", "git config core.fsmonitor 'cp mine.json hook-loop.json'",
		"git -c core.fsmonitor='cp a.txt hook-loop.json; false' status hook-loop.json",
		"GIT_EXTERNAL_DIFF='cp a.txt x' git diff hook-loop.json", "git grep -O'tee hook-loop.json' x hook-loop.json",
		"sort -o hook-loop.j* a.txt", "go build -o hook-loop.j* .", "uniq a.txt hook-loop.j*",
		"sort --outp=hook-loop.json a.txt", "sort --out hook-loop.json a.txt", "bat --pager='tee x' hook-loop.json",
		"sort --compress-program=sh hook-loop.json", "sort --output=hook-loop.json a.txt",
		"yq -i .x=1 hook-loop.json", "xxd a.txt hook-loop.json", "truncate -s0 cfg.json",
		// Shell text that runs later or is made as it runs.
		"trap 'rm hook-loop.json' EXIT", "alias ll='rm hook-loop.json'; ll",
		"f() { rm -f \"$1\"; }; f hook-loop.json", "wipe() { : > \"$1\"; }; wipe .hook-loop/events.jsonl",
		"source hook-loop.json",
		// Links made in the same command line, then written through.
		"ln -s hook-loop.json l && cat mine.json > l", "ln -s .hook-loop d && rm d/events.jsonl",
		"ln .hook-loop/events.jsonl h && : > h", "cp -l hook-loop.json h && : > h",
		"ln -s .claude c; cp mine.json c/settings.json", "mkdir x && ln -s ../hook-loop.json x/y && truncate -s 0 x/y",
		"ln -sf ../../hook-loop.json sub/deep/link", "ln -s . r && rm r/hook-loop.json", "cp -rs .claude c",
		"eval \"$(echo rm -f hook-loop.json)\"", "sh -c \"$(echo gzip hook-loop.json)\"",
		// By glob, brace, variable and tilde.
		"gzip hook-*.json", "gzip {hook-loop,package}.json", "f=hook-loop.json; gzip $f",
		"gzip ~/.claude/settings.json",
		// Launchers in front of an unknown writer.
		"nice -n 5 shuf -o hook-loop.json a.txt", "env -u X sort -o hook-loop.json a.txt",
	}
	for _, cmd := range refused {
		if got := g.bash(cmd); !got.Blocked {
			t.Errorf("%q: allowed, want refused (%+v)", cmd, got)
		}
	}
	read := []string{
		"cat hook-loop.json", "jq .loop.states hook-loop.json", "head -5 .hook-loop/events.jsonl",
		"grep -n state hook-loop.json", "git diff hook-loop.json", "git log -p -- hook-loop.json",
		"wc -l .hook-loop/events.jsonl", "diff hook-loop.json a.txt", "less hook-loop.json",
		"cp hook-loop.json /tmp/copy.json", "ls -la .hook-loop", "hook-loop validate hook-loop.json",
		"sort .hook-loop/events.jsonl | uniq -c", "tail -n 3 .hook-loop/events.jsonl", "stat hook-loop.json",
		"cd .hook-loop && ls", "sha256sum hook-loop.json", "test -f hook-loop.json && echo yes",
		"uniq -f 1 hook-loop.json", "xxd -c 16 hook-loop.json", "jq . < hook-loop.json", "git log -p -- hook-loop.json",
	}
	for _, cmd := range read {
		if got := g.bash(cmd); got.Blocked {
			t.Errorf("%q: refused (%s), want allowed", cmd, got.Reason)
		}
	}
}

// TestGuardRefusesAnExistingHardLink: a hard link to the log made earlier
// (by a script the parser never saw) is refused as the log itself.
func TestGuardRefusesAnExistingHardLink(t *testing.T) {
	g := newGuardProject(t, false)
	if err := os.Link(filepath.Join(g.root, ".hook-loop", "events.jsonl"), filepath.Join(g.root, "notes.txt")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	for _, cmd := range []string{": > notes.txt", "echo x >> notes.txt", "gzip notes.txt", "sed -i d notes.txt"} {
		if got := g.bash(cmd); !got.Blocked {
			t.Errorf("%q: allowed, want refused as a write to the log", cmd)
		}
	}
	if got := g.bash("cat notes.txt"); got.Blocked {
		t.Errorf("cat of the link: refused (%s), want allowed", got.Reason)
	}
}

// TestGuardRefusesReadingSecrets: the log's keys and the pinned loops are
// refused to readers as well (issue 31 item 3), by name, glob, recursive
// reader or link, while the rest of the state stays readable.
func TestGuardRefusesReadingSecrets(t *testing.T) {
	g := newGuardProject(t, false)
	state := filepath.Join(filepath.Dir(g.root), "state")
	for _, f := range []string{"keys/abc.key", "pins/def.json", "projects/p-1/events.jsonl"} {
		p := filepath.Join(state, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("k"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	g.eng.SecretPaths = []string{filepath.Join(state, "keys") + "/", filepath.Join(state, "pins") + "/"}
	g.eng.OwnedPaths = append(g.eng.OwnedPaths, state+"/")
	g.eng.Vars["ST"] = state
	for _, cmd := range []string{
		"cat $ST/keys/abc.key", "head -c 32 $ST/keys/*", "cat $ST/k*/*", "grep -r . $ST",
		"rg secret $ST", "cat $ST/pins/def.json", "xxd $ST/keys/abc.key", "base64 $ST/keys/abc.key",
		"cd $ST && cat keys/abc.key", "jq . $ST/pins/def.json",
		"cat < $ST/keys/abc.key", "base64 < $ST/keys/abc.key", "cp -r $ST /tmp/k", "grep --recur x $ST",
		"grep -d recurse x $ST", "grep --directories=recurse x $ST",
	} {
		if got := g.bash(cmd); !got.Blocked {
			t.Errorf("%q: allowed, want refused", cmd)
		}
	}
	for _, cmd := range []string{"cat $ST/projects/p-1/events.jsonl", "ls $ST", "grep -rn TODO ."} {
		if got := g.bash(cmd); got.Blocked {
			t.Errorf("%q: refused (%s), want allowed", cmd, got.Reason)
		}
	}
}

// TestGuardRefusesSecretsToReadTools: a harness's own read tools (Read,
// Grep, Glob) are refused the keys and pins as cat is.
func TestGuardRefusesSecretsToReadTools(t *testing.T) {
	g := newGuardProject(t, false)
	state := filepath.Join(filepath.Dir(g.root), "state")
	key := filepath.Join(state, "keys", "abc.key")
	if err := os.MkdirAll(filepath.Dir(key), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, []byte("k"), 0o600); err != nil {
		t.Fatal(err)
	}
	g.eng.SecretPaths = []string{filepath.Join(state, "keys") + "/"}
	check := func(tool string, paths ...string) bool {
		ev := loop.HookEvent{Name: loop.EventPreToolUse, ToolName: tool, Cwd: g.root, ReadPaths: paths}
		return g.eng.CheckTool(&ev, "a").Blocked
	}
	g.eng.Home = filepath.Dir(g.root) // ~ is the folder holding the project and the state
	if !check("Read", key) || !check("Grep", state) || !check("Glob", filepath.Join(state, "keys")) ||
		!check("read", "../state/keys/abc.key") || !check("read", "~/state/keys/abc.key") {
		t.Error("a read tool was let read the log's key")
	}
	if check("Read", filepath.Join(g.root, "hook-loop.json")) || check("Grep", g.root) {
		t.Error("a read tool was refused an ordinary read")
	}
}

// TestGuardGeneratedShellText: a shell handed text made as the command runs
// cannot be judged: a note, and a refusal under fail_closed.
func TestGuardGeneratedShellText(t *testing.T) {
	cmd := `sh -c "$(printf 'mkfifo hook-loop.js%s' on)"`
	if got := newGuardProject(t, false).bash(cmd); got.Blocked || got.Note == "" {
		t.Errorf("%s: %+v, want allowed with a note", cmd, got)
	}
	if got := newGuardProject(t, true).bash(cmd); !got.Blocked {
		t.Errorf("%s under fail_closed: allowed, want refused", cmd)
	}
}

// TestGuardHardLinksAreLookedUpOnce: naming many hard-linked files (a pnpm
// node_modules) indexes the protected files once per call, and a word given
// many times is looked at once.
func TestGuardHardLinksAreLookedUpOnce(t *testing.T) {
	g := newGuardProject(t, false)
	a := filepath.Join(g.root, "a.txt")
	var words []string
	for i := 0; i < 200; i++ {
		p := filepath.Join(g.root, fmt.Sprintf("l%d", i))
		if err := os.Link(a, p); err != nil {
			t.Skipf("no hard links here: %v", err)
		}
		words = append(words, p, p)
	}
	if got := g.bash("node x.js " + strings.Join(words, " ")); got.Blocked {
		t.Errorf("hard links to an ordinary file refused: %s", got.Reason)
	}
}
