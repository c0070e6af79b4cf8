//go:build unix

package lifecycle_test

import (
	"slices"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/lifecycle"
)

// Per-call latency of a Python module executor, started afresh for every
// call as every executor is.
func BenchmarkPythonModuleFresh(b *testing.B) {
	needPython(b)
	dir := pyDir(b)
	r := pyRunner(b, dir, lifecycle.Entry{Name: "bench", Module: "pidhook:Pid", Timeout: 30 * time.Second})
	if _, err := callPid(b, r, "bench"); err != nil {
		b.Fatal(err)
	}
	took := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := callPid(b, r, "bench"); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "ms-median")
}
