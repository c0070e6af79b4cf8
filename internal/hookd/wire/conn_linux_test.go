package wire

import (
	"errors"
	"syscall"
	"testing"
)

// StopReading returns a byte the peer sent before it, and makes the peer's
// writes after it fail: what a client that stops waiting for Started relies
// on, so that a server cannot start the hook unseen.
func TestStopReading(t *testing.T) {
	for _, sentBefore := range []bool{false, true} {
		fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		client, server := NewConn(fds[0]), NewConn(fds[1])
		if sentBefore {
			if err := server.Send([]byte{Started}); err != nil {
				t.Fatal(err)
			}
		}
		b, ok := client.StopReading()
		if ok != sentBefore || ok && b != Started {
			t.Errorf("sent before: %v; StopReading = %q, %v", sentBefore, b, ok)
		}
		if err := server.Send([]byte{Started}); !errors.Is(err, syscall.EPIPE) {
			t.Errorf("sent before: %v; the server's Started after StopReading: %v, want EPIPE", sentBefore, err)
		}
		client.Close()
		server.Close()
	}
}
