package setup

import (
	"fmt"
	"strings"
)

// CheckEvents is doctor's check that the harness file file has a hook-loop
// hook (cmds, by native event) for every event install registers; fix is
// the reinstall that adds the missing ones.
func (fs *Findings) CheckEvents(file string, cmds map[string][]string, events []string, fix string) {
	var missing []string
	for _, ev := range events {
		if len(cmds[ev]) == 0 {
			missing = append(missing, ev)
		}
	}
	if len(missing) > 0 {
		fs.Add(LevelWarn, fmt.Sprintf("%s has no hook-loop hook for %s", file, strings.Join(missing, ", ")), fix)
		return
	}
	fs.Add(LevelOK, fmt.Sprintf("%s has hook-loop hooks for all %d events", file, len(events)), "")
}
