package serve

import (
	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/internal/hookrun"
)

// LogStats is what the co-process's requests did with the log at path.
func LogStats(path string) eventlog.CacheStats { return logs.Stats(path) }

// AsAnotherProcess runs fn with nothing of the co-process's logs kept: a hook
// run in fn reads and writes the log as one in another process would. Only
// between requests (hookrun.KeepLogs is process-wide).
func AsAnotherProcess(fn func()) {
	hookrun.KeepLogs(nil)
	defer hookrun.KeepLogs(logs)
	fn()
}
