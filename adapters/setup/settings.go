package setup

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hook-loop/hook-loop/scaffold/settingshooks"
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

// CheckMatchers fails a settings file (doc, at path) whose tool events'
// matcher for hook-loop's commands (ours) leaves out a tool of want, the tools
// every install now shows hook-loop: one written by an older hook-loop, or
// edited by hand, lets those tools' calls through unjudged. fix is the
// reinstall command.
func CheckMatchers(out *Findings, path string, doc []byte, ours, isToolEvent func(string) bool, want []string, fix string) {
	ms := settingshooks.Matchers(doc, ours)
	events := make([]string, 0, len(ms))
	for ev := range ms {
		events = append(events, ev)
	}
	sort.Strings(events)
	for _, ev := range events {
		if !isToolEvent(ev) {
			continue
		}
		for _, m := range ms[ev] {
			if miss := settingshooks.Unmatched(m, want); len(miss) > 0 {
				out.Add(LevelFail, fmt.Sprintf("%s: the %s matcher %q does not show hook-loop %s: those tool calls are not judged (an older install?)",
					path, ev, m, strings.Join(miss, ", ")), fix)
			}
		}
	}
}
