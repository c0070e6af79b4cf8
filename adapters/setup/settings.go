package setup

import (
	"fmt"
	"strings"

	"github.com/hook-loop/hook-loop/cli/cmdutil"
	"github.com/hook-loop/hook-loop/scaffold"
)

// The install and uninstall of the harnesses that keep hook commands in a
// JSON settings file (Claude Code, Gemini CLI): what differs is the file, the
// events and the command; reading, merging, the dry run and the report are
// the same.

// ResolveInstall resolves the loop an install named cmd ("gemini install")
// writes for projectDir, and the hook binary it names: the lean one when it
// can serve the loop (an explicit --binary is written as given).
func ResolveInstall(o *cmdutil.Common, cmd, projectDir string) (*cmdutil.Loop, error) {
	l, err := o.ResolveLoop(cmd, projectDir)
	if err != nil {
		return nil, err
	}
	if o.Binary == "" {
		var why string
		if l.Binary, _, why = scaffold.HookBinary(l.Binary, l.Store, o.Getenv); why != "" {
			fmt.Fprintln(o.IO.Out, why)
		}
	}
	return l, nil
}

// SettingsInstall is one install into a settings file.
type SettingsInstall struct {
	Cmd        string // "claude install"
	ProjectDir string
	Path       string // the settings file
	Loop       *cmdutil.Loop
	// Merge returns the settings document with hook-loop's hooks.
	Merge func(old []byte) ([]byte, error)
	// Commands are hook-loop's commands in a document, by event.
	Commands func(doc []byte) map[string][]string
	Matcher  string // the tool events' matcher, reported
	Example  string // the hook command of one event, reported
}

// InstallSettings is the rest of an install into a settings file: the loop,
// then the merged file, then the hook command it holds.
func InstallSettings(o *cmdutil.Common, s SettingsInstall) error {
	if err := o.MergeInstall(s.Cmd, s.ProjectDir, s.Loop, s.Path, s.Merge, func(merged []byte) string {
		return fmt.Sprintf(": hooks for %d events, tool matcher %q", len(s.Commands(merged)), s.Matcher)
	}); err != nil {
		return err
	}
	fmt.Fprintf(o.IO.Out, "hook command: %s\n", s.Example)
	return nil
}

// UninstallSettings removes hook-loop's hooks from a settings file
// (cmdutil.Common.MergeUninstall).
func UninstallSettings(o *cmdutil.Common, cmd, projectDir, path string, remove func([]byte) ([]byte, int, error)) error {
	return o.MergeUninstall(cmd, projectDir, path, remove)
}

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
