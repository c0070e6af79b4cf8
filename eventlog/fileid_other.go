//go:build !unix

package eventlog

import "os"

// fileID is empty where no stable file identity is cheap to read; the index then
// relies on its content checks (size, first and last covered line).
func fileID(os.FileInfo) string { return "" }
