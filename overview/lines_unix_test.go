//go:build unix

package overview

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/project/regfile"
)

// A log path that is a FIFO (planted by the agent) is refused at once, never
// waited on: the board and notify read every registered log.
func TestLogReadsRefuseAFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "events.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	reads := map[string]func() error{
		"readBackwards": func() error {
			_, err := readBackwards(fifo, 10, 10, func([]byte) bool { return true })
			return err
		},
		"completeEnd":  func() error { _, err := completeEnd(fifo); return err },
		"readForwards": func() error { return readForwards(fifo, 10, nil, func([]byte) bool { return true }) },
	}
	for name, read := range reads {
		done := make(chan error, 1)
		go func() { done <- read() }()
		select {
		case err := <-done:
			if !errors.Is(err, regfile.ErrNotRegular) {
				t.Errorf("%s of a FIFO: %v, want ErrNotRegular", name, err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%s waited on a FIFO", name)
		}
	}
}
