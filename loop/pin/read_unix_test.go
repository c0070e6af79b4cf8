//go:build unix

package pin

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A loop file swapped for a FIFO or a link to a device reads as unreadable, at
// once: neither the open nor the read waits or runs on.
func TestReadFileRefusesFIFOAndDevice(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	dev := filepath.Join(dir, "zero.json")
	if err := os.Symlink("/dev/zero", dev); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, dev} {
		if f := ReadFile(p); f.Err == nil || len(f.Data) != 0 {
			t.Errorf("%s: read %d bytes, err %v; want it refused", filepath.Base(p), len(f.Data), f.Err)
		}
	}
}

// A pin swapped for a FIFO is a missing pin at once, never a wait.
func TestPinThatIsAFIFOIsMissing(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	hash := Hash([]byte("x"))
	if err := syscall.Mkfifo(s.Path(hash), 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, err := s.Get(hash); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrMissing) {
			t.Fatalf("a FIFO pin: %v, want ErrMissing", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("still waiting on the pin FIFO")
	}
}
