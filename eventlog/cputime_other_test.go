//go:build !unix

package eventlog

import "time"

func cpuTime() time.Duration { return 0 }
