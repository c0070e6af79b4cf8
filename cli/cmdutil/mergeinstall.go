package cmdutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/hook-loop/hook-loop/scaffold"
)

// ResolveMergeLoop is ResolveLoop for an install that merges hook-loop's
// hooks into a harness file (MergeInstall): unless --binary named one
// (written as given), the hooks run the lean hook binary beside hook-loop
// when it can serve them, and the install says why when it is not that one.
func (c *Common) ResolveMergeLoop(cmd, projectDir string) (*Loop, error) {
	l, err := c.ResolveLoop(cmd, projectDir)
	if err != nil || c.Binary != "" {
		return l, err
	}
	var why string
	if l.Binary, _, why = scaffold.HookBinary(l.Binary, l.Store, c.Getenv); why != "" {
		fmt.Fprintln(c.IO.Out, why)
	}
	return l, nil
}

// HookPaths are the --config and --event-log arguments of the hooks, in
// shell form: a project's own loop and log through projectArg (relative to
// the variable its harness exports with the project directory), a user-wide
// install's loop (when --dsl named one) quoted as it is, else "" (each
// project finds its own).
func (l *Loop) HookPaths(projectArg func(path string) string) (config, log string) {
	arg := func(p string) string {
		if p == "" {
			return "" // --state user: the hook finds the log itself
		}
		return projectArg(p)
	}
	switch {
	case !l.UserWide:
		return arg(l.Config), arg(l.Log)
	case l.Config != "":
		return scaffold.ShellQuote(l.Config), ""
	}
	return "", ""
}

// MergeInstall is the rest of an install that merges hook-loop's hooks into
// a harness file at path: merge gets the file (nil when there is none), the
// loop file is written (or shown), then the merged file, with detail saying
// what it holds; a dry run shows the diff.
func (c *Common) MergeInstall(cmd, projectDir string, l *Loop, path string, merge func(old []byte) ([]byte, error), detail func(merged []byte) string) error {
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: read %s: %w", cmd, path, err)
	}
	merged, err := merge(old)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", cmd, path, err)
	}
	c.NoteDryRunWins()
	write := c.Writes() || !c.DryRun
	if err := c.WriteLoop(cmd, write, projectDir, l); err != nil {
		return err
	}
	state := "updated"
	if old == nil {
		state = "new file"
	}
	return c.WriteFile(cmd, write, path, old, merged, "hook-loop's hooks are already installed", state, detail(merged),
		func() error { return scaffold.WriteFileAtomic(path, merged) })
}

// MergeUninstall removes hook-loop's hooks from the harness file at path of
// the project at projectDir: remove returns the file without them (nil: the
// file goes) and how many it removed. The project is then left as install
// found it (Uninstall: files emptied and folders left empty removed, its
// .gitignore line, with --purge the loop and its state); a dry run shows it.
func (c *Common) MergeUninstall(cmd, projectDir, path string, remove func(old []byte) (after []byte, n int, err error)) error {
	var changes []scaffold.Change
	old, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		fmt.Fprintf(c.IO.Out, "nothing to remove: %s does not exist\n", path)
	case err != nil:
		return fmt.Errorf("%s: read %s: %w", cmd, path, err)
	default:
		after, n, err := remove(old)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", cmd, path, err)
		}
		if n == 0 {
			fmt.Fprintf(c.IO.Out, "nothing to remove: no hook-loop hooks in %s\n", path)
		} else {
			changes = append(changes, scaffold.Change{Path: path, Before: old, After: after,
				Note: fmt.Sprintf("remove %d hook-loop hook(s)", n)})
		}
	}
	if len(changes) == 0 && !c.Purge {
		return nil
	}
	return c.Uninstall(cmd, projectDir, c.Scope != "user", changes)
}
