package lifecycle

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestOwnedFiles: the declaration and every executor file it names are the
// person's, whichever way an entry names its code.
func TestOwnedFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "hooks", "pkg"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"hooks/check.py", "hooks/pkg/__init__.py", "hooks/run.sh"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	decl := filepath.Join(dir, "hooks.yaml")
	if err := os.WriteFile(decl, []byte(`hooks:
  - name: a
    path: hooks/run.sh
    on: [loop_start]
  - name: b
    module: hooks.pkg
    on: [loop_start]
  - name: c
    command: [python3, hooks/check.py]
    on: [loop_start]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	got := OwnedFiles(decl, func(string) string { return "" })
	for _, want := range []string{decl, filepath.Join(dir, "hooks/run.sh"), filepath.Join(dir, "hooks/pkg/__init__.py"), filepath.Join(dir, "hooks/check.py")} {
		if !slices.Contains(got, want) {
			t.Errorf("OwnedFiles = %q, missing %s", got, want)
		}
	}
	// The default declaration is owned under both names, existing or not.
	cfg := t.TempDir()
	got = OwnedFiles("", func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return cfg
		}
		return ""
	})
	if !slices.Equal(got, []string{filepath.Join(cfg, "hook-loop", "config.yaml"), filepath.Join(cfg, "hook-loop", "config.json")}) {
		t.Errorf("default: %q", got)
	}
}
