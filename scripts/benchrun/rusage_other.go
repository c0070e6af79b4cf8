//go:build !unix

package main

import "os"

// maxRSS is unknown where getrusage is not available; the table says n/a.
func maxRSS(*os.ProcessState) int64 { return 0 }
