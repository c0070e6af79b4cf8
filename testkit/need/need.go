// Package need finds the programs the real-harness, browser and PostgreSQL
// tests run — the harnesses scripts/install-harnesses.sh installs, Chromium,
// PostgreSQL's server binaries — and skips a test that lacks one. Under CI
// (CI=true) a missing program fails the test instead: a suite that skips there
// would pass without having run.
package need

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
)

// HarnessDirEnv overrides where scripts/install-harnesses.sh installs the
// harnesses (<repository root>/.cache/harnesses by default).
const HarnessDirEnv = "HOOK_LOOP_HARNESS_DIR"

// InCI reports whether the tests run under CI, as $CI says (GitHub Actions,
// GitLab and most others set CI=true).
func InCI() bool {
	ci, _ := strconv.ParseBool(os.Getenv("CI"))
	return ci
}

// Skipf skips t with the message, or fails it when InCI.
func Skipf(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if InCI() {
		t.Fatalf("%s (CI=true: this test must run here, not skip)", msg)
	}
	t.Skip(msg)
}

// RepoRoot is the module root: the nearest directory holding go.mod, upwards
// from the working directory (a test's is its package directory).
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find the repository root: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("find the repository root: no go.mod above the working directory")
		}
		dir = parent
	}
}

// HarnessDir is the directory scripts/install-harnesses.sh installs harness
// name into: $HOOK_LOOP_HARNESS_DIR/<name>, else
// <repository root>/.cache/harnesses/<name>. It need not exist.
func HarnessDir(name string) (string, error) {
	base := os.Getenv(HarnessDirEnv)
	if base == "" {
		root, err := RepoRoot()
		if err != nil {
			return "", err
		}
		base = filepath.Join(root, ".cache", "harnesses")
	}
	return filepath.Abs(filepath.Join(base, name))
}

// Harness returns the installed harness's executable
// (<HarnessDir>/node_modules/.bin/<bin>; bin defaults to name), or skips t.
func Harness(t testing.TB, name string, bin ...string) string {
	t.Helper()
	b := name
	if len(bin) > 0 {
		b = bin[0]
	}
	return HarnessFile(t, name, "node_modules", ".bin", b)
}

// HarnessFile returns a file of the installed harness (rel is its path under
// HarnessDir), or skips t.
func HarnessFile(t testing.TB, name string, rel ...string) string {
	t.Helper()
	dir, err := HarnessDir(name)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(append([]string{dir}, rel...)...)
	if _, err := os.Stat(p); err != nil {
		Skipf(t, "%s is not installed (no %s): run scripts/install-harnesses.sh %s", name, p, name)
	}
	return p
}

// Node returns node from PATH, which the npm-installed harnesses run on, or
// skips t.
func Node(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("node")
	if err != nil {
		Skipf(t, "node is not on PATH: install Node.js, then run scripts/install-harnesses.sh")
	}
	return p
}

// chromiumNames are the names scripts/install-chromium.sh accepts.
var chromiumNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"}

// Chromium returns a Chromium (or Chrome) executable from PATH, or skips t.
func Chromium(t testing.TB) string {
	t.Helper()
	for _, name := range chromiumNames {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	Skipf(t, "no Chromium (%v) on PATH: run scripts/install-chromium.sh", chromiumNames)
	return ""
}

// PostgresBin returns the directory holding PostgreSQL's initdb and postgres
// (the newest /usr/lib/postgresql/<version>/bin, else PATH's), or skips t.
func PostgresBin(t testing.TB) string {
	t.Helper()
	dir, err := postgresBin()
	if err != nil {
		Skipf(t, "PostgreSQL unavailable (%v): run scripts/install-postgres.sh", err)
	}
	return dir
}

func postgresBin() (string, error) {
	m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(m) == 0 {
		p, err := exec.LookPath("initdb")
		if err != nil {
			return "", errors.New("no initdb in /usr/lib/postgresql/*/bin or PATH")
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(p), "postgres")); err != nil {
			return "", fmt.Errorf("no postgres beside %s", p)
		}
		return filepath.Dir(p), nil
	}
	version := func(initdb string) int {
		v, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
		return v
	}
	sort.Slice(m, func(i, j int) bool { return version(m[i]) < version(m[j]) })
	return filepath.Dir(m[len(m)-1]), nil
}
