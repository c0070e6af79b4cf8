// Command hello is the floor every hook figure is compared with: a Go program
// that reads its stdin, as a hook does, and exits. scripts/bench.sh builds it
// with the same flags as hook-loop.
package main

import (
	"io"
	"os"
)

func main() {
	if _, err := io.Copy(io.Discard, os.Stdin); err != nil {
		os.Exit(1)
	}
	os.Stdout.WriteString("{}\n")
}
