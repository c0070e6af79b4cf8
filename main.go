// Command hook-loop gates coding agents (Codex CLI, Claude Code, opencode, pi) with a
// JSON state machine, through the harnesses' own hooks.
package main

import (
	"os"

	hlcli "github.com/hook-loop/hook-loop/cli"
	"github.com/hook-loop/hook-loop/internal/hookd"
	"github.com/hook-loop/hook-loop/internal/pgkeeper"
)

func main() {
	// The hook server and the PostgreSQL connection keeper hooks start
	// (internal/hookd, internal/pgkeeper) are this binary under a hidden
	// first argument, outside the CLI's commands.
	if len(os.Args) > 1 && os.Args[1] == hookd.Arg {
		os.Exit(hookd.Main(os.Args[2:], os.Getenv))
	}
	if len(os.Args) > 1 && os.Args[1] == pgkeeper.Arg {
		os.Exit(pgkeeper.Main(os.Args[2:], os.Getenv))
	}
	os.Exit(hlcli.Main(os.Args, os.Stdin, os.Stdout, os.Stderr))
}
