//go:build unix

package hook_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A trace file swapped for a FIFO (--record) must not hold the hook past
// the harness's timeout: opening it for writing would wait for a reader.
func TestTraceThatIsAFIFODoesNotHoldTheHook(t *testing.T) {
	isolate(t)
	root := project(t, "")
	if err := os.MkdirAll(filepath.Join(root, ".hook-loop"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, ".hook-loop", "trace.jsonl"), 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	done := make(chan string, 1)
	go func() {
		out := run(t, root, root, "Stop", `{"session":"s"}`, true)
		done <- string(out.Stdout) + " / " + string(out.Stderr)
	}()
	select {
	case got := <-done:
		if !strings.HasPrefix(got, "block:") || !strings.Contains(got, "record trace") {
			t.Fatalf("stop with the trace a FIFO: %q, want it refused naming the trace", got)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the hook is still waiting on the trace FIFO")
	}
}
