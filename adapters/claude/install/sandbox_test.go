package install

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSandboxEnabled(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	write := func(p, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if sandboxEnabled(dir, home) {
		t.Error("no settings: enabled")
	}
	write(filepath.Join(home, ".claude", "settings.json"), `{"sandbox":{"enabled":true}}`)
	if !sandboxEnabled(dir, home) {
		t.Error("user settings enable it: not seen")
	}
	write(filepath.Join(dir, ".claude", "settings.local.json"), `{"sandbox":{"enabled":false}}`)
	if sandboxEnabled(dir, home) {
		t.Error("the local settings turn it off: still enabled")
	}
}
