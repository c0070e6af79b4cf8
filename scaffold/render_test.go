package scaffold

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestLineDiff(t *testing.T) {
	got := LineDiff("f", []byte("a\nb\nc\n"), []byte("a\nx\nc\n"))
	want := "--- f\n+++ f\n@@ -1,3 +1,3 @@\n a\n-b\n+x\n c\n"
	if got != want {
		t.Errorf("diff:\n%s\nwant:\n%s", got, want)
	}
	if got := LineDiff("f", nil, []byte("n\n")); got != "--- /dev/null\n+++ f\n@@ -0,0 +1,1 @@\n+n\n" {
		t.Errorf("create diff: %q", got)
	}
	if got := LineDiff("f", []byte("same\n"), []byte("same\n")); got != "" {
		t.Errorf("no change: %q", got)
	}
}

// TestLineDiffIsARealPatch: the dry run's diff of a long file is hunks with
// context (not the whole file), and patch(1) applies it to give --write's file.
func TestLineDiffIsARealPatch(t *testing.T) {
	patch, err := exec.LookPath("patch")
	if err != nil {
		t.Skip("patch(1) is not installed")
	}
	var before, after []string
	for i := range 40 {
		line := strings.Repeat("x", i)
		before = append(before, line)
		if i == 20 {
			line = "changed"
		}
		after = append(after, line)
	}
	b, a := []byte(strings.Join(before, "\n")+"\n"), []byte(strings.Join(after, "\n")+"\n")
	dir := t.TempDir()
	path := filepath.Join(dir, "hooks.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	d := LineDiff("hooks.json", b, a)
	if n := strings.Count(d, "\n"); n > 12 {
		t.Errorf("a one-line change gave a %d-line diff:\n%s", n, d)
	}
	cmd := exec.Command(patch, "-p0", "--quiet")
	cmd.Dir, cmd.Stdin = dir, strings.NewReader(d)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("patch: %v\n%s\n%s", err, out, d)
	}
	if got, _ := os.ReadFile(path); string(got) != string(a) {
		t.Errorf("patched file differs from the new content")
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/usr/bin/hook-loop": "/usr/bin/hook-loop",
		"/a b/hook-loop":     "'/a b/hook-loop'",
		"it's":               `'it'\''s'`,
		"":                   "''",
	} {
		if got := ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
