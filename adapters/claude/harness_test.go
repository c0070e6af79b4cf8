package claude

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A user-scope install (no --config) gates a project that has a loop file or a
// log, and only those: deleting a gated project's loop file does not ungate it.
func TestHookProjectGatesAProjectWithALog(t *testing.T) {
	noEnv := func(string) string { return "" }
	dir := t.TempDir()
	if _, gated := hookProject(strings.NewReader("{}"), noEnv, "", dir); gated {
		t.Fatal("a folder without hook-loop is gated")
	}
	if err := os.MkdirAll(filepath.Join(dir, ".hook-loop"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".hook-loop", "events.jsonl"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, gated := hookProject(strings.NewReader("{}"), noEnv, "", dir); !gated {
		t.Fatal("a project with a log but no loop file (deleted) is not gated")
	}
}
