// A hook runs for a few milliseconds on one thread, so it needs none of Go
// 1.25's container-aware GOMAXPROCS: these settings skip the goroutine that
// re-reads the cgroup's CPU limit every second and the limit's use at start.
// (The runtime still opens the cgroup once at start, for a metric; no setting
// turns that off.) hook-loop keeps the defaults: its board and co-process run
// for hours.

//go:debug containermaxprocs=0
//go:debug updatemaxprocs=0

package main
