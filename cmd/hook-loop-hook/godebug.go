// A hook runs for a few milliseconds on one thread, so the runtime need not
// read the cgroup's CPU limit at start nor watch it change (Go 1.25's
// container-aware GOMAXPROCS): 2-6 % of a hook's wall time (docs/bench.md).
// hook-loop keeps the defaults: its board and co-process run for hours.

//go:debug containermaxprocs=0
//go:debug updatemaxprocs=0

package main
