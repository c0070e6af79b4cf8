package scaffold

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteFileAtomicKeepsLinks: writing through a symlink (a chain of two, a
// relative one, one whose target does not exist yet) writes the target and
// keeps every link a link.
func TestWriteFileAtomicKeepsLinks(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "settings.json")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	mid, link := filepath.Join(dir, "mid.json"), filepath.Join(dir, "settings.json")
	if err := os.Symlink("dotfiles/settings.json", mid); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(mid, link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{link, mid} {
		if st, err := os.Lstat(l); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a link: %v", l, err)
		}
	}
	if b, _ := os.ReadFile(real); string(b) != "new" {
		t.Errorf("target = %q", b)
	}
	if st, _ := os.Stat(real); st.Mode().Perm() != 0o600 {
		t.Errorf("target mode = %v", st.Mode().Perm())
	}
	dangling := filepath.Join(dir, "hooks.json")
	if err := os.Symlink("dotfiles/hooks.json", dangling); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(dangling, []byte("h")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "dotfiles", "hooks.json")); string(b) != "h" {
		t.Errorf("dangling link's target = %q", b)
	}
	var out bytes.Buffer
	Render(&out, []Change{{Path: link, Before: []byte("new"), After: []byte("newer")}}, nil, false)
	if want := "edits the target of the link " + link + " → " + real; !strings.Contains(out.String(), want) {
		t.Errorf("dry run = %q, want it to say %q", out.String(), want)
	}
	if err := Apply([]Change{{Path: link, Before: []byte("new"), After: []byte("newer")}}); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("Apply replaced the link: %v", err)
	}
	loop := filepath.Join(dir, "loop.json")
	if err := os.Symlink("loop.json", loop); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(loop, nil); err == nil || !strings.Contains(err.Error(), "too many levels") {
		t.Errorf("a link loop: %v", err)
	}
}
