package identity

import (
	"os"
	"path/filepath"
	"testing"
)

func TestNormalizeRemote(t *testing.T) {
	for in, want := range map[string]string{
		"git@github.com:acme/widget.git":              "github.com/acme/widget",
		"https://github.com/acme/widget":              "github.com/acme/widget",
		"https://user:token@GitHub.com/acme/widget/":  "github.com/acme/widget",
		"ssh://git@github.com:22/acme/widget.git":     "github.com/acme/widget",
		"ssh://git@git.corp:2222/team/repo.git":       "git.corp:2222/team/repo",
		"git://github.com/acme/widget.git":            "github.com/acme/widget",
		"github.com:acme/widget":                      "github.com/acme/widget",
		"/srv/git/widget.git":                         "/srv/git/widget",
		"file:///srv/git/widget.git":                  "/srv/git/widget",
		"C:/repos/widget":                             "C:/repos/widget",
		"http://gitlab.example.com:80/group/sub/repo": "gitlab.example.com/group/sub/repo",
	} {
		if got := NormalizeRemote(in); got != want {
			t.Errorf("NormalizeRemote(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIdentity(t *testing.T) {
	noEnv := func(string) string { return "" }
	plain := t.TempDir()
	if got := Of(plain, noEnv); got != plain {
		t.Errorf("no repository: %q, want the folder %q", got, plain)
	}
	env := func(k string) string {
		if k == Env {
			return "team/one"
		}
		return ""
	}
	if got := Of(plain, env); got != "team/one" {
		t.Errorf("%s set: %q", Env, got)
	}

	repo := t.TempDir()
	write := func(path, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(repo, ".git", "config"), "[core]\n\tbare = false\n[remote \"upstream\"]\n\turl = git@other:x/y\n[remote \"origin\"]\n\turl = git@github.com:acme/widget.git\n")
	sub := filepath.Join(repo, "pkg", "deep")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := Of(sub, noEnv); got != "github.com/acme/widget" {
		t.Errorf("subdirectory of a clone: %q", got)
	}
	// A linked worktree: .git is a file pointing into the main repository.
	wt := t.TempDir()
	write(filepath.Join(repo, ".git", "worktrees", "wt", "commondir"), "../..\n")
	write(filepath.Join(wt, ".git"), "gitdir: "+filepath.Join(repo, ".git", "worktrees", "wt")+"\n")
	if got := Of(wt, noEnv); got != "github.com/acme/widget" {
		t.Errorf("worktree: %q", got)
	}
	// A repository without an origin is its folder.
	bare := t.TempDir()
	write(filepath.Join(bare, ".git", "config"), "[core]\n\tbare = false\n")
	if got := Of(bare, noEnv); got != bare {
		t.Errorf("no origin: %q", got)
	}
}
