// Command hook-loop gates coding agents (Codex CLI, Claude Code, opencode, pi) with a
// JSON state machine, through the harnesses' own hooks.
package main

import (
	"os"

	hlcli "github.com/hook-loop/hook-loop/cli"
)

func main() {
	os.Exit(hlcli.Main(os.Args, os.Stdin, os.Stdout, os.Stderr))
}
