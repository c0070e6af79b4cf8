//go:build unix

package codex

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A transcript path that names a FIFO (or a device) is no rollout: the
// exit code is unknown at once. An open that waited for a writer would hang
// the PostToolUse hook until the harness killed it (and let the agent go on),
// and an agent that can write the rollout's path could plant one on purpose.
func TestRolloutThatIsNoFileIsNotWaitedOn(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "rollout.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for name, path := range map[string]string{"fifo": fifo, "device": os.DevNull, "directory": dir} {
		done := make(chan *int, 1)
		a := New()
		a.sleep = func(time.Duration) {}
		go func() { done <- a.rolloutExitCode(path, "call_mock_2") }()
		select {
		case c := <-done:
			if c != nil {
				t.Errorf("%s: exit code %d", name, *c)
			}
		case <-time.After(10 * time.Second):
			// Let the blocked open go, so the test binary can end.
			if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
			t.Fatalf("%s: still reading the rollout after 10 s", name)
		}
	}
}
