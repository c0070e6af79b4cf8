//go:build !linux

package hookd

import (
	"fmt"
	"os"
)

// Main: the hook server runs on Linux only, where the client can tell who
// serves it (/proc); elsewhere the lean hook runs every event itself.
func Main(args []string, getenv func(string) string) int {
	fmt.Fprintln(os.Stderr, "hook-loop: the hook server runs on Linux only")
	return 2
}
