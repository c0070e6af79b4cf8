//go:build unix

package lifecycle_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/lifecycle"
)

// The user's config swapped for a FIFO must not hold a hook that reads it.
func TestUserConfigThatIsAFIFODoesNotHoldTheHook(t *testing.T) {
	cfg := t.TempDir()
	if err := os.MkdirAll(filepath.Join(cfg, "hook-loop"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(cfg, "hook-loop", "config.json")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	getenv := func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return cfg
		}
		return ""
	}
	done := make(chan [2]error, 1)
	go func() {
		_, err1 := lifecycle.UserStore(getenv)
		_, err2 := lifecycle.ParseFile(path)
		done <- [2]error{err1, err2}
	}()
	select {
	case errs := <-done:
		if errs[0] == nil || errs[1] == nil {
			t.Fatalf("a FIFO read as the user config: %v", errs)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("still waiting on the config FIFO")
	}
}
