//go:build unix

package serve_test

import (
	"syscall"
	"time"
)

// cpuTime is the process's user+system CPU time: on a busy machine it measures
// the work a run does, where wall time mostly measures waiting for a CPU.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
