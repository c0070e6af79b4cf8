//go:build unix

package identity

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// The project's git config swapped for a FIFO names the project by its path,
// at once: a hook with a database store reads it.
func TestIdentityDoesNotWaitOnAFIFOGitConfig(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, ".git", "config"), 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	done := make(chan string, 1)
	go func() { done <- Of(root, func(string) string { return "" }) }()
	select {
	case got := <-done:
		if abs, _ := filepath.Abs(root); got != abs {
			t.Fatalf("identity %q, want the path %q", got, abs)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("still waiting on the git config FIFO")
	}
}
