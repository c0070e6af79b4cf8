package setup

import (
	"fmt"
	"strings"
)

// What the harnesses that keep hook commands in a JSON settings file (Claude
// Code, Qwen Code, Gemini CLI) share in their doctors. Their installs and
// uninstalls are cmdutil.Common.MergeInstall and MergeUninstall.

// SettingsLayer is one settings file holding hook-loop's hook commands.
type SettingsLayer struct {
	Scope, Path string
	Cmds        map[string][]string // event -> hook-loop's commands
}

// CheckLayers adds the doctor's findings every settings-file harness shares:
// hook-loop installed in more than one file (each event then reaches it more
// than once), and per file the events without a hook-loop hook and the
// commands' binary and loop file. harness is the display name, name the
// command name ("gemini"), events the events install writes.
func CheckLayers(out *Findings, layers []SettingsLayer, harness, name string, events []string, commands *CommandChecks) {
	if len(layers) > 1 {
		var paths []string
		for _, l := range layers {
			paths = append(paths, l.Path)
		}
		out.Add(LevelWarn, fmt.Sprintf("hook-loop hooks are installed in %s: %s runs every one of them, so each event reaches hook-loop more than once", strings.Join(paths, " and "), harness),
			"keep one: hook-loop "+name+" uninstall --write --scope SCOPE")
	}
	for _, l := range layers {
		var missing []string
		for _, ev := range events {
			if len(l.Cmds[ev]) == 0 {
				missing = append(missing, ev)
			}
		}
		if len(missing) > 0 {
			out.Add(LevelWarn, fmt.Sprintf("%s has no hook-loop hook for %s", l.Path, strings.Join(missing, ", ")),
				commands.Reinstall+" --scope "+l.Scope)
		} else {
			out.Add(LevelOK, fmt.Sprintf("%s has hook-loop hooks for all %d events", l.Path, len(events)), "")
		}
		commands.Check(out, l.Path, l.Cmds)
	}
}
