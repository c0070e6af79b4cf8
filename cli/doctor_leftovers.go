package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/hook-loop/hook-loop/adapters/setup"
)

// leftoverDirs are the folders of the user's state directory that the hook
// server and the PostgreSQL connection keeper of earlier versions kept their
// sockets and lock files in. Hooks no longer use them.
var leftoverDirs = []string{"hookd", "pgkeeper"}

// leftoverArgs are the hidden first arguments those servers ran under.
var leftoverArgs = []string{"__hookd", "__pg-keeper"}

// leftoverFindings names what earlier versions' hook servers left in the
// state directory (sockets, lock files) and any of them still running, and
// with fix removes the files and stops the servers.
func leftoverFindings(stateDir string, fix bool) []setup.Finding {
	var out []setup.Finding
	add := func(level setup.Level, what, how string) {
		out = append(out, setup.Finding{Level: level, Harness: "state", What: what, Fix: how})
	}
	for _, name := range leftoverDirs {
		dir := filepath.Join(stateDir, name)
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		if !fix {
			add(setup.LevelWarn, fmt.Sprintf("%s holds %d file(s) an earlier version's hook server left (sockets, locks); hooks no longer use them", dir, len(entries)),
				"`hook-loop doctor --fix` removes them")
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			add(setup.LevelFail, fmt.Sprintf("cannot remove %s: %v", dir, err), "remove it by hand")
			continue
		}
		add(setup.LevelOK, fmt.Sprintf("removed %s (%d file(s) an earlier version's hook server left)", dir, len(entries)), "")
	}
	for _, p := range leftoverServers() {
		if !fix {
			add(setup.LevelWarn, fmt.Sprintf("an earlier version's hook server is still running: pid %d (%s)", p.pid, p.cmd),
				"`hook-loop doctor --fix` stops it")
			continue
		}
		if err := stopProcess(p.pid); err != nil {
			add(setup.LevelFail, fmt.Sprintf("cannot stop pid %d (%s): %v", p.pid, p.cmd, err), fmt.Sprintf("kill %d", p.pid))
			continue
		}
		add(setup.LevelOK, fmt.Sprintf("stopped an earlier version's hook server, pid %d (%s)", p.pid, p.cmd), "")
	}
	return out
}

type leftoverServer struct {
	pid int
	cmd string
}
