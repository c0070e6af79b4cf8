//go:build unix

package regfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A FIFO is refused at once, whatever it is opened for: the open does not
// wait for a writer or a reader.
func TestOpenDoesNotWaitOnAFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	opens := map[string]func() error{
		"Open read":               func() error { _, _, err := Open(p, os.O_RDONLY, 0); return err },
		"OpenNoFollow create":     func() error { _, _, err := OpenNoFollow(p, os.O_RDONLY|os.O_CREATE, 0o644); return err },
		"OpenNoFollow append":     func() error { _, _, err := OpenNoFollow(p, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644); return err },
		"OpenNoFollow write-only": func() error { _, _, err := OpenNoFollow(p, os.O_WRONLY, 0); return err },
	}
	for name, open := range opens {
		done := make(chan error, 1)
		go func() { done <- open() }()
		select {
		case err := <-done:
			// A write-only open of a FIFO nobody reads fails at once (ENXIO).
			if err == nil || (!errors.Is(err, ErrNotRegular) && !errors.Is(err, syscall.ENXIO)) {
				t.Errorf("%s: %v", name, err)
			}
		case <-time.After(10 * time.Second):
			if f, err := os.OpenFile(p, os.O_RDWR|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
			t.Fatalf("%s still waiting after 10 s", name)
		}
	}
}

// A link to a FIFO is refused as a link by OpenNoFollow, and as a FIFO by
// Open.
func TestOpenLinkToAFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo, link := filepath.Join(dir, "fifo"), filepath.Join(dir, "link")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	if _, _, err := OpenNoFollow(link, os.O_RDONLY, 0); !errors.Is(err, ErrSymlink) {
		t.Errorf("OpenNoFollow: %v", err)
	}
	var pe *fs.PathError
	if _, _, err := Open(link, os.O_RDONLY, 0); !errors.Is(err, ErrNotRegular) || !errors.As(err, &pe) || pe.Path != link {
		t.Errorf("Open: %v", err)
	}
}
