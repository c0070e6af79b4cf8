package serve

import "github.com/hook-loop/hook-loop/eventlog"

// LogStats is what the co-process's requests did with the log at path.
func LogStats(path string) eventlog.CacheStats { return logs.Stats(path) }
