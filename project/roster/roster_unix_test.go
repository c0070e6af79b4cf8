//go:build unix

package roster

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// An entry the agent planted whose log is a FIFO (or a link) is skipped, so
// that `notify` and `board --all` never open it, but kept on disk.
func TestListSkipsEntryWhoseLogIsNotARegularFile(t *testing.T) {
	state, root := t.TempDir(), t.TempDir()
	fifo := filepath.Join(root, "events.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	real := filepath.Join(root, "real.jsonl")
	if err := os.WriteFile(real, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "link.jsonl")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	good := Entry{Root: root, Config: filepath.Join(root, "hook-loop.json"), Log: real}
	store := Entry{Root: root, Config: filepath.Join(root, "hook-loop.json"), Store: true}
	bad := []Entry{
		{Root: root, Config: filepath.Join(root, "hook-loop.json"), Log: fifo},
		{Root: root, Config: filepath.Join(root, "hook-loop.json"), Log: link},
	}
	for _, e := range append([]Entry{good, store}, bad...) {
		if err := Register(state, e); err != nil {
			t.Fatal(err)
		}
	}
	got, warns, err := List(state)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Log != "" || got[1].Log != real {
		t.Fatalf("List = %+v, want the store entry and the regular log only", got)
	}
	if len(warns) != 2 || !strings.Contains(strings.Join(warns, "\n"), fifo) {
		t.Errorf("warnings = %q, want the FIFO and the link named", warns)
	}
	for _, e := range bad {
		if _, err := os.Lstat(entryPath(state, e)); err != nil {
			t.Errorf("entry for %s was removed: %v", e.Log, err)
		}
	}
}
