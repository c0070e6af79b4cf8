package regfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestOpenReadsRegularFiles(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("hello, world"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, size, err := Open(p)
	if err != nil || size != 12 {
		t.Fatalf("Open: size %d, %v", size, err)
	}
	defer f.Close()
	b := make([]byte, 5)
	if n, err := f.ReadAt(b, 7); n != 5 || err != nil || string(b) != "world" {
		t.Errorf("ReadAt(7): %d %q %v", n, b[:n], err)
	}
	if n, err := f.ReadAt(b, 10); n != 2 || err != io.EOF || string(b[:n]) != "ld" {
		t.Errorf("ReadAt past the end: %d %q %v", n, b[:n], err)
	}
	all, err := io.ReadAll(f)
	if err != nil || string(all) != "hello, world" {
		t.Errorf("ReadAll: %q %v", all, err)
	}
}

func TestOpenRefusesDirectoriesAndDevices(t *testing.T) {
	dir := t.TempDir()
	for path, want := range map[string]error{dir: ErrDir, os.DevNull: ErrNotRegular} {
		_, _, err := Open(path)
		var pe *fs.PathError
		if !errors.Is(err, want) || !errors.As(err, &pe) || pe.Path != path {
			t.Errorf("Open(%s): %v, want %v", path, err, want)
		}
	}
	if _, _, err := Open(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}
