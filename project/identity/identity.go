// Package identity names a project in a shared event store, apart from
// package project so that the hook path does not link net/url for it.
package identity

import (
	"bufio"
	"github.com/hook-loop/hook-loop/project/regfile"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// Env overrides a project's identity in a shared event store.
const Env = "HOOK_LOOP_PROJECT"

// Of names the project at root in a shared event store, so checkouts of
// one repository on several machines join the same loop and unrelated projects
// on one database never mix: $HOOK_LOOP_PROJECT when set, else the git origin
// remote normalised (NormalizeRemote), else root's absolute path. getenv is
// os.Getenv outside tests.
func Of(root string, getenv func(string) string) string {
	if v := strings.TrimSpace(getenv(Env)); v != "" {
		return v
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		abs = root
	}
	if remote := originURL(abs); remote != "" {
		if id := NormalizeRemote(remote); id != "" {
			return id
		}
	}
	return abs
}

// NormalizeRemote reduces a git remote URL to host/path: scheme, credentials,
// default ports, a trailing "/" and ".git" dropped, the host lower-cased, so
// git@host:org/repo.git, ssh://git@host/org/repo and https://user@host/org/repo
// all name host/org/repo. A local path remote stays a path.
func NormalizeRemote(remote string) string {
	r := strings.TrimSpace(remote)
	var host, path string
	switch {
	case strings.Contains(r, "://"):
		u, err := url.Parse(r)
		if err != nil {
			return strings.TrimSuffix(strings.TrimSuffix(r, "/"), ".git")
		}
		if u.Scheme == "file" {
			return strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), ".git")
		}
		host = strings.ToLower(u.Hostname())
		if p := u.Port(); p != "" && p != "22" && p != "80" && p != "443" && p != "9418" {
			host += ":" + p
		}
		path = u.Path
	case isSCPLike(r):
		// scp-like syntax: [user@]host:path
		at := strings.Index(r, "@")
		colon := strings.Index(r, ":")
		if at >= 0 && at < colon {
			r = r[at+1:]
			colon -= at + 1
		}
		host, path = strings.ToLower(r[:colon]), r[colon+1:]
	default:
		return strings.TrimSuffix(strings.TrimSuffix(r, "/"), ".git")
	}
	path = strings.Trim(path, "/")
	path = strings.TrimSuffix(path, ".git")
	if host == "" {
		return path
	}
	return host + "/" + path
}

// isSCPLike is git's rule: a colon before any slash, and not a Windows drive letter.
func isSCPLike(r string) bool {
	colon := strings.Index(r, ":")
	if colon <= 1 {
		return false
	}
	slash := strings.Index(r, "/")
	return slash < 0 || colon < slash
}

// originURL reads remote.origin.url from the git config of the repository holding
// dir ("" when there is none). It reads the file rather than running git: a hook
// runs on every tool call and a process start costs more than the whole lookup.
func originURL(dir string) string {
	for d := dir; ; {
		if cfg := gitConfigPath(filepath.Join(d, ".git")); cfg != "" {
			return remoteURL(cfg, "origin")
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// maxGitFile bounds the small git files read on the way to the config.
const maxGitFile = 64 << 10

// gitConfigPath finds the config file of a .git directory, or of a .git file
// (a worktree or submodule: "gitdir: <path>", whose commondir holds the config).
func gitConfigPath(dotGit string) string {
	fi, err := os.Stat(dotGit)
	if err != nil {
		return ""
	}
	gitDir := dotGit
	if !fi.IsDir() {
		b, err := regfile.ReadFile(dotGit, maxGitFile)
		if err != nil {
			return ""
		}
		p, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
		if !ok {
			return ""
		}
		gitDir = strings.TrimSpace(p)
		if !filepath.IsAbs(gitDir) {
			gitDir = filepath.Join(filepath.Dir(dotGit), gitDir)
		}
		if c, err := regfile.ReadFile(filepath.Join(gitDir, "commondir"), maxGitFile); err == nil {
			common := strings.TrimSpace(string(c))
			if !filepath.IsAbs(common) {
				common = filepath.Join(gitDir, common)
			}
			gitDir = common
		}
	}
	return filepath.Join(gitDir, "config")
}

// remoteURL returns the url of [remote "name"] in a git config file: the subset
// of git's config syntax that git itself writes for remotes.
func remoteURL(path, name string) string {
	// The project's git files are the agent's to write: a FIFO there must not
	// hold a hook.
	f, _, err := regfile.Open(path, os.O_RDONLY, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			sec := strings.TrimSpace(strings.Trim(line, "[]"))
			kind, sub, _ := strings.Cut(sec, " ")
			in = strings.EqualFold(kind, "remote") && strings.Trim(strings.TrimSpace(sub), `"`) == name
			continue
		}
		if !in {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), "url") {
			return strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	return ""
}
