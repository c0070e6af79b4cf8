package gemini

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestCorrectedCutShortIsTheWorkspace: past the walk's bounds (more folders
// than it reads, or a folder of more entries) which file replace would edit
// is unknown, so the whole workspace is reported — the agent cannot hide a
// protected file behind a crowd of folders.
func TestCorrectedCutShortIsTheWorkspace(t *testing.T) {
	root := t.TempDir()
	for i := 0; i <= maxSearchDirs; i++ {
		if err := os.Mkdir(filepath.Join(root, fmt.Sprintf("d%04d", i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "d9999", ".opencode", "plugins"), 0o755); err != nil {
		t.Fatal(err)
	}
	got := corrected(root, "plugins/hook-loop.ts")
	if !slices.Contains(got, root) {
		t.Errorf("walk past %d folders: %q, want the workspace %s", maxSearchDirs, got, root)
	}
	small := t.TempDir()
	if err := os.MkdirAll(filepath.Join(small, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(small, ".gemini", "settings.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := corrected(small, "settings.json"); len(got) != 1 || got[0] != filepath.Join(small, ".gemini", "settings.json") {
		t.Errorf("small workspace: %q", got)
	}
}
