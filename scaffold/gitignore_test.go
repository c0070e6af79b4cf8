package scaffold

import (
	"os"
	"path/filepath"
	"testing"
)

func TestGitignoreChange(t *testing.T) {
	dir := t.TempDir()
	c, err := GitignoreChange(dir)
	if err != nil || c == nil || string(c.After) != "/.hook-loop/\n" || c.Before != nil {
		t.Fatalf("fresh project: %+v, %v", c, err)
	}
	path := filepath.Join(dir, ".gitignore")
	if err := os.WriteFile(path, []byte("node_modules"), 0o644); err != nil {
		t.Fatal(err)
	}
	if c, _ = GitignoreChange(dir); c == nil || string(c.After) != "node_modules\n/.hook-loop/\n" {
		t.Fatalf("appended to a file without final newline: %+v", c)
	}
	for _, line := range []string{".hook-loop", ".hook-loop/", "/.hook-loop", "/.hook-loop/"} {
		if err := os.WriteFile(path, []byte("x\n"+line+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if c, _ = GitignoreChange(dir); c != nil {
			t.Errorf("%q already ignores the state: got a change %q", line, c.After)
		}
	}
}
