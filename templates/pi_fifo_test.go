//go:build unix

package templates

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A loop file swapped for a FIFO must not hold pi when hook-loop fails to
// answer: the extension then reads the loop's fail_closed itself, and a plain
// read of a FIFO waits for a writer that never comes, in pi's own thread.
func TestPiLoopFileThatIsAFIFODoesNotHoldTheExtension(t *testing.T) {
	p := newPiCoproc(t, `{"action":"block","reason":"refused"}`)
	p.env = []string{"HOOK_LOOP_COPROC=0", "HOOK_LOOP_PI_TIMEOUT_MS=1500"}
	if err := syscall.Mkfifo(filepath.Join(p.proj, "hook-loop.json"), 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	out := p.run(`tool("HANG"); tool("ls")`)
	if !strings.Contains(out, "no answer within 1500 ms") || !strings.Contains(out, `{"block":true,"reason":"refused"}`) {
		t.Fatalf("with the loop file a FIFO the extension answered %s; want the timeout said (the loop's defaults) and the next call judged", out)
	}
}
