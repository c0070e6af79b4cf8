package pin

import (
	"github.com/hook-loop/hook-loop/project/regfile"
)

// readRegular reads the loop file at path whole (up to maxLoopFile), and
// only if it is a regular file (regfile: the open cannot wait on a FIFO, so
// what it opened is looked at once, open, instead of by a stat before it).
func readRegular(path string) ([]byte, error) { return regfile.ReadFile(path, maxLoopFile) }
