package guard

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLinkMadeInFolderAllowed: the folder ln or cp -s makes a link in is
// not what the link leads to; a project folder holding the loop's files is
// no reason to refuse a link made there.
func TestLinkMadeInFolderAllowed(t *testing.T) {
	for _, failClosed := range []bool{false, true} {
		p := launchProject(t, false, failClosed)
		for _, cmd := range []string{
			"ln -s ../foo .", "ln -t . -s ../foo", "cp -s ../x .", "ln -s ../foo ./", "ln -s -- ../foo .",
			"ln -s --target-directory=. ../foo", "ln -s --target-directory . ../foo", "ln -st. ../foo",
			`ln -s ../foo "$PWD"`, `ln -s -t "$PWD" ../foo`, "ln -s /tmp/x ~/../proj", "cp -s ../x \"$PWD\"",
			"cp -l a.txt .", "ln a.txt sub/", "nice ln -s ../foo .", "env ln -s ../foo .", "bash -c 'ln -s ../foo .'",
			"cd sub && ln -s ../../foo ..", "ln -s /tmp/x .",
		} {
			if got := p.bash(cmd); got.Blocked {
				t.Errorf("fail_closed=%v: %s: refused (%s)", failClosed, cmd, got.Reason)
			}
		}
	}
}

// TestLinkProtectionsHold: a link that lands on a loop file, or whose
// source is a folder holding one (or a word that may be one), stays refused
// however its destination is spelled.
func TestLinkProtectionsHold(t *testing.T) {
	p := launchProject(t, false, false)
	for _, cmd := range []string{
		// Landing on a loop file.
		"ln -s /tmp/x .claude/settings.json", "ln -s /tmp/evil hook-loop.json", "ln -sf x .hook-loop/events.jsonl",
		"cd .claude && ln -s /tmp/x settings.json", "ln -s /tmp/settings.json .claude", "ln -s /tmp/settings.json .claude/",
		"ln -s -t .claude /tmp/settings.json", "ln -s --target-directory=.claude /tmp/settings.json",
		"ln -s --target-directory .claude /tmp/settings.json", "ln -s --target=.claude /tmp/settings.json",
		"ln -st .claude /tmp/settings.json", "ln -s /tmp/hook-loop.json .", `ln -s /tmp/hook-loop.json "$PWD"`,
		"ln -s /tmp/hook-loop.json ~/../proj", "ln -t . -s /tmp/hook-loop.json", "ln -s -- /tmp/hook-loop.json .",
		"env ln -s /tmp/hook-loop.json .", "bash -c 'ln -s /tmp/evil hook-loop.json'", "cp -s /tmp/hook-loop.json .",
		// A source that is, or holds, a loop file.
		"ln -s .claude c", "ln -s . x", "cp -rs . /tmp/y", "mount --bind . /mnt", "ln -s . -- x", "ln -s -- . x",
		"ln -s .claude -t /tmp", "ln -s -t /tmp .claude", "ln -s -t /tmp .", `ln -s -t /tmp "$PWD"`,
		`ln -s "$PWD" /tmp/p`, "ln -s ~/../proj /tmp/p", "env ln -s . /tmp/p", "nice ln -s . /tmp/p",
		"bash -c 'ln -s . /tmp/p'", `cp -s "$PWD"/* /tmp/d/`, `cp -rs "$PWD" /tmp/y`, `cp -s -t /tmp "$PWD/.claude"`,
		"cp -al . /tmp/y", "cd sub && ln -s .. up", "cd sub && ln -s ../.claude c", "ln .claude/settings.json /tmp/s",
		// Under POSIXLY_CORRECT an option after an operand is an operand.
		`POSIXLY_CORRECT=1 ln -s /tmp/a "$PWD/.claude" -S x /tmp/d`, "POSIXLY_CORRECT=1 ln -s /tmp/a .claude -t /tmp",
		// A word of several fields may hide a source.
		"ln -s /tmp/a {.claude,zz}", "ln -s . {a,b}", "ln -s {.,b} c",
		// A relative target is read from the link's folder, made earlier in the line or named by -t.
		"mkdir x && ln -s ../hook-loop.json x && echo x > x/hook-loop.json",
		"mkdir x && ln -s --sym ../hook-loop.json x && echo x > x/hook-loop.json",
		"mkdir x && ln -st x ../hook-loop.json && echo x > x/hook-loop.json",
		"mkdir x && ln -s -tx ../hook-loop.json && echo x > x/hook-loop.json",
		"mkdir x && ln -s --target-directory=x ../hook-loop.json && echo x > x/hook-loop.json",
		"ln -s -t sub ../.claude && echo x > sub/.claude/settings.json",
	} {
		wantRefused(t, p, cmd)
	}
}

// TestLinkThroughSymlinkedSpellings: a folder reached through a symlink or
// $HOME is judged as the folder it is, as a source and as a destination.
func TestLinkThroughSymlinkedSpellings(t *testing.T) {
	p := launchProject(t, false, false)
	if err := os.Symlink(p.Root, filepath.Join(p.Root, "sub", "top")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(p.Root, "sub", "inner"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("sub", "inner"), filepath.Join(p.Root, "deep")); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{
		"ln -s sub/top /tmp/p", "ln -s -t /tmp sub/top", "cp -rs sub/top/ /tmp/y", `ln -s "$HOME/../proj" /tmp/p`,
		"ln -s ~/../proj/.claude /tmp/c", "ln -s /tmp/hook-loop.json sub/top", "ln -s -t sub/top /tmp/hook-loop.json",
		"ln -s /tmp/settings.json sub/top/.claude", "ln -s --target-directory=sub/top/.claude /tmp/settings.json",
		`ln -s /tmp/hook-loop.json "$HOME/../proj"`, "cd sub/top && ln -s /tmp/hook-loop.json .",
		// deep/ is sub/inner: a target's .. climbs from there.
		"ln -s ../../.claude deep/c && cp /tmp/evil deep/c/settings.json", "ln -s ../../hook-loop.json deep/",
		"ln -s -t deep ../../.claude", "mkdir -p deep/x/y && ln -s ../../../../.claude deep/x/y/c",
	} {
		wantRefused(t, p, cmd)
	}
	for _, cmd := range []string{"ln -s ../foo sub/top", "ln -s -t sub/top ../foo", `ln -s ../foo "$HOME/../proj/sub"`} {
		wantAllowed(t, p, cmd)
	}
}

// TestLinkReplacingLinkedFolderRefused: with -n or -T, ln replaces a
// destination that is a link to a folder instead of entering it; where the
// hook configuration's folder is such a link, that swaps the whole folder.
func TestLinkReplacingLinkedFolderRefused(t *testing.T) {
	p := launchProject(t, false, false)
	real := filepath.Join(filepath.Dir(p.Root), "dotclaude")
	if err := os.Rename(filepath.Join(p.Root, ".claude"), real); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(p.Root, ".claude")); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{
		"ln -sfn /tmp/evil .claude", "ln -sfT /tmp/evil .claude", "ln -sf --no-dereference /tmp/evil .claude",
		"ln -sf --no-target-directory /tmp/evil .claude", "ln -sf --no-d /tmp/evil .claude", "ln -sf -n -- /tmp/evil .claude",
		"ln -s /tmp/settings.json .claude", "ln -s .claude /tmp/c", "ln -sf /tmp/.claude .", "ln -sf -t . /tmp/.claude",
		"ln -sf /tmp/x/.claude ./", "cp -sf /tmp/.claude .",
	} {
		wantRefused(t, p, cmd)
	}
	if got := p.bash("ln -sf /tmp/evil .claude"); got.Blocked {
		t.Errorf("a link made inside the linked folder: refused (%s)", got.Reason)
	}
}

// TestLinkIntoHomeWithSecrets: a link made in the home folder does not read
// the keys under it; a link to a folder holding them still does.
func TestLinkIntoHomeWithSecrets(t *testing.T) {
	p := secretsProject(t, false)
	for _, cmd := range []string{"ln -s /tmp/x ~/", "ln -sf \"$PWD/build\" ~/", "ln -s -t ~ /tmp/x"} {
		wantAllowed(t, p, cmd)
	}
	for _, cmd := range []string{"ln -s ~/.local/state /tmp/s", "ln -s -t /tmp ~/.local/state/hook-loop", "cp -rs ~/.local /tmp/l",
		"ln -s ~ /tmp/h", "ln -s /tmp/x ~/.local/state/hook-loop/keys/k2"} {
		wantRefused(t, p, cmd)
	}
}
