package install

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSandboxMode(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	if got := SandboxMode(dir, home); got != "" || sandboxCovers(got) != "" {
		t.Errorf("nothing set: %q", got)
	}
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("model = \"x\"\nsandbox_mode = \"workspace-write\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := SandboxMode(dir, home); got != "workspace-write" || sandboxCovers(got) == "" {
		t.Errorf("user config: %q", got)
	}
	if err := os.MkdirAll(filepath.Join(dir, ".codex"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".codex", "config.toml"), []byte("sandbox_mode = \"danger-full-access\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := SandboxMode(dir, home); got != "danger-full-access" || sandboxCovers(got) != "" {
		t.Errorf("the project's config wins: %q", got)
	}
}
