package eventlog

import (
	"os"
	"path/filepath"
	"testing"
)

// TestOpenFileInfo: what openFileInfo returns of the open file is what a
// second stat would say (the index compares the size and records the
// identity).
func TestOpenFileInfo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	if err := os.WriteFile(path, []byte("0123456789\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, got, err := openFileInfo(path, os.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if got.size != fi.Size() || got.fileID() != fileID(fi) {
		t.Fatalf("openFileInfo: size %d, id %q; Stat: size %d, id %q", got.size, got.fileID(), fi.Size(), fileID(fi))
	}
	if _, _, err := openFileInfo(filepath.Dir(path), os.O_RDONLY, 0); err == nil {
		t.Fatal("a directory opened")
	}
}
