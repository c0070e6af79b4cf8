// Command hook-loop gates coding agents (Codex CLI, Claude Code, opencode, pi) with a
// JSON state machine, through the harnesses' own hooks.
package main

import (
	"os"

	"github.com/hook-loop/hook-loop/internal/cmd"
)

func main() {
	os.Exit(cmd.Main(os.Args, os.Stdin, os.Stdout, os.Stderr))
}
