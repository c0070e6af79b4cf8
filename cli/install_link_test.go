package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallIntoSymlinkedSettings: a harness settings file that is a symlink
// (kept in a dotfiles folder) is edited through the link: the dry run says so,
// and the written install leaves the link a link.
func TestInstallIntoSymlinkedSettings(t *testing.T) {
	for _, c := range []struct {
		harness, file string
		args          []string
	}{
		{"claude", ".claude/settings.json", []string{"claude", "install"}},
		{"codex", ".codex/hooks.json", []string{"codex", "install"}},
		{"pi", ".pi/extensions/hook_loop.ts", []string{"pi", "install"}},
	} {
		t.Run(c.harness, func(t *testing.T) {
			w := newToyWorld(t)
			dotfiles := filepath.Join(w.home, "dotfiles", filepath.Base(c.file))
			if err := os.MkdirAll(filepath.Dir(dotfiles), 0o755); err != nil {
				t.Fatal(err)
			}
			link := filepath.Join(w.dir, c.file)
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(dotfiles, link); err != nil {
				t.Fatal(err)
			}
			code, out, errOut := w.run(t, "", append(c.args, "--dry-run")...)
			if want := "edits the target of the link " + link + " → " + dotfiles; code != 0 || !strings.Contains(out, want) {
				t.Fatalf("dry run: exit %d, want %q in\n%s%s", code, want, out, errOut)
			}
			if c.harness == "codex" {
				return // --write asks a real codex to trust the project: the e2e tests cover it
			}
			if code, out, errOut := w.run(t, "", append(c.args, "--write")...); code != 0 {
				t.Fatalf("install --write: exit %d\n%s%s", code, out, errOut)
			}
			if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
				t.Fatalf("install replaced the link %s with a file: %v", link, err)
			}
			if b, err := os.ReadFile(dotfiles); err != nil || !strings.Contains(string(b), "hook-loop") {
				t.Errorf("the link's target was not written: %v %.200q", err, b)
			}
		})
	}
}
