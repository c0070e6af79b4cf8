package regfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenReadsRegularFiles(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("hello, world"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, fi, err := Open(p, os.O_RDONLY, 0)
	if err != nil || fi.Size() != 12 {
		t.Fatalf("Open: %v, %v", fi, err)
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
	for _, open := range []func(string, int, fs.FileMode) (*os.File, fs.FileInfo, error){Open, OpenNoFollow} {
		for path, want := range map[string]error{dir: ErrDir, os.DevNull: ErrNotRegular} {
			_, _, err := open(path, os.O_RDONLY, 0)
			var pe *fs.PathError
			if !errors.Is(err, want) || !errors.As(err, &pe) || pe.Path != path {
				t.Errorf("open(%s): %v, want %v", path, err, want)
			}
		}
		if _, _, err := open(filepath.Join(dir, "missing"), os.O_RDONLY, 0); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("a missing file: %v", err)
		}
	}
}

// OpenNoFollow creates, writes and refuses a link, even one to a file it
// may write or to nothing yet; Open goes through it.
func TestOpenNoFollow(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "log")
	f, fi, err := OpenNoFollow(p, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil || fi.Size() != 0 || !fi.Mode().IsRegular() {
		t.Fatalf("create: %v, %v", fi, err)
	}
	if _, err := f.WriteString("x\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	link, dangling := filepath.Join(dir, "link"), filepath.Join(dir, "dangling")
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symbolic links here")
	}
	if err := os.Symlink(filepath.Join(dir, "nothing"), dangling); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{link, dangling} {
		if _, _, err := OpenNoFollow(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644); !errors.Is(err, ErrSymlink) {
			t.Errorf("OpenNoFollow(%s): %v, want %v", filepath.Base(path), err, ErrSymlink)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "nothing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the dangling link's target was created (%v)", err)
	}
	f, fi, err = Open(link, os.O_RDONLY, 0)
	if err != nil || fi.Size() != 4 {
		t.Fatalf("Open through a link: %v, %v", fi, err)
	}
	f.Close()
}

// ReadFile reads a file whole up to its limit and names the limit past it,
// whether the file's size is known up front or, as for /proc's files, not.
func TestReadFileUpToItsLimit(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{0, 1, 511, 512, 513, 4096, 10000} {
		p := filepath.Join(dir, "f")
		want := make([]byte, n)
		for i := range want {
			want[i] = byte('a' + i%26)
		}
		if err := os.WriteFile(p, want, 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := ReadFile(p, int64(n)); err != nil || string(got) != string(want) {
			t.Errorf("%d bytes, limit %d: %d bytes, %v", n, n, len(got), err)
		}
		if n > 0 {
			_, err := ReadFile(p, int64(n-1))
			var pe *fs.PathError
			if !errors.As(err, &pe) || pe.Path != p || pe.Err.Error() != "larger than "+size(int64(n-1)) {
				t.Errorf("%d bytes, limit %d: %v", n, n-1, err)
			}
		}
	}
	// A file whose stat says 0 bytes but which reads more.
	if _, err := os.Stat("/proc/self/status"); err == nil {
		got, err := ReadFile("/proc/self/status", 1<<20)
		if err != nil || !strings.Contains(string(got), "Pid:") {
			t.Errorf("/proc/self/status: %q %v", got, err)
		}
	}
}
