package cmdutil

import (
	"fmt"
	"os"
	"path/filepath"

	loopdsl "github.com/hook-loop/hook-loop/loop/dsl"

	"github.com/hook-loop/hook-loop/project"
	"github.com/hook-loop/hook-loop/scaffold"
)

// UserHome is Home, else the process user's home ("" when unknown).
func (c *Common) UserHome() string {
	if c.Home != "" {
		return c.Home
	}
	home, _ := os.UserHomeDir()
	return home
}

// Loop is what an install that points its hooks at the project's files in
// place (Claude Code's settings, pi's extension) resolves before it writes.
type Loop struct {
	Binary   string // the hook-loop executable the hooks run
	Path     string // the loop file
	Data     []byte // non-nil: the gallery loop to write at Path
	Spec     *loopdsl.Spec
	Note     string // ResolveLoop's note on an existing hook-loop.json
	LogPath  string // the project's event log (--state)
	Store    string // --store without its password, "" for the JSONL file
	UserWide bool   // --scope user: the hooks serve every project
	// State is "user" when the hooks keep the project's log in the user's
	// state directory (they pass --state user and find it themselves), else "".
	State string
	// Config and Log are the loop file and log the hooks name: "" where each
	// project finds its own (user scope: both, unless --dsl names one loop).
	Config, Log string
}

// ResolveLoop resolves the binary, loop and log an install named cmd ("claude
// install") writes into the hooks for projectDir; scopes names the --scope
// values of a project's install.
func (c *Common) ResolveLoop(cmd, projectDir string) (*Loop, error) {
	if c.DSL != "" && c.Profile != "" {
		return nil, Exitf(2, "%s: --dsl and --profile both given: pick one", cmd)
	}
	l := &Loop{UserWide: c.Scope == "user"}
	var err error
	if l.Binary, err = scaffold.HookLoopBinary(c.Binary); err != nil {
		return nil, fmt.Errorf("%s: %w", cmd, err)
	}
	if l.Path, l.Data, l.Spec, l.Note, err = scaffold.ResolveLoop(projectDir, Resolve(c.WorkDir, c.DSL), c.Profile); err != nil {
		return nil, fmt.Errorf("%s: %w", cmd, err)
	}
	if l.LogPath, err = project.LogPathFor(projectDir, c.State, c.Getenv); err != nil {
		return nil, Exitf(2, "%s: %v", cmd, err)
	}
	if c.State == project.StateUser {
		// The hooks find the log in the user's state directory themselves:
		// a settings file the team commits must not name one person's home.
		l.State = project.StateUser
	}
	store, note, err := SafeStoreURL(c.Store)
	if err != nil {
		return nil, err
	}
	if note != "" {
		fmt.Fprintln(c.IO.Out, note)
	}
	l.Store = store
	// User-wide hooks serve every project: each finds its own loop file and
	// log from its root, unless --dsl names one loop for all.
	if !l.UserWide {
		l.Config = l.Path
		if l.State == "" {
			l.Log = l.LogPath
		}
	} else if c.DSL != "" {
		l.Config = l.Path
	}
	return l, nil
}

// WriteLoop says a dry run is one (write false), then writes (or shows) the
// gallery loop and, for a project-scope install, the .gitignore entry.
func (c *Common) WriteLoop(cmd string, write bool, projectDir string, l *Loop) error {
	if !write {
		DryRunNote(c.IO.Out, cmd)
	}
	if err := scaffold.WriteProfile(c.IO.Out, write, l.Path, l.Data, l.Spec.Definition.ID, l.Note); err != nil {
		return fmt.Errorf("%s: %w", cmd, err)
	}
	if !l.UserWide {
		if err := scaffold.WriteGitignore(c.IO.Out, write, projectDir); err != nil {
			return fmt.Errorf("%s: %w", cmd, err)
		}
	}
	return nil
}

// WriteFile reports one harness file an install merges or replaces: unchanged
// (already says why), else written with save when write, with its state (then
// a link note, then detail) and, on a dry run, the exact diff.
func (c *Common) WriteFile(cmd string, write bool, path string, old, content []byte, already, state, detail string, save func() error) error {
	if old != nil && string(old) == string(content) {
		fmt.Fprintf(c.IO.Out, "unchanged %s (%s)\n", path, already)
		return nil
	}
	if write {
		if err := save(); err != nil {
			return fmt.Errorf("%s: %w", cmd, err)
		}
	}
	if link := scaffold.LinkNote(path); link != "" {
		state += "; " + link
	}
	scaffold.Report(c.IO.Out, write, "write", path, state+detail)
	if !write {
		fmt.Fprint(c.IO.Out, scaffold.LineDiff(path, old, content))
	}
	return nil
}

// ProjectPath is an install's project-relative path flag made absolute.
func (c *Common) ProjectPath(path string) (string, error) {
	if path == "" {
		return "", nil
	}
	return filepath.Abs(Resolve(c.WorkDir, path))
}

// Uninstall carries out the uninstall of a harness whose files install edits
// in place (claude, pi): changes, the harness's own files, completed with
// --purge's (the loop file, its schema, the project's state) and by
// scaffold.Tidy so the project is left as install found it, then shown (a
// dry run) or applied and reported. projectScope: the harness files are the
// project's, not the user's.
func (c *Common) Uninstall(cmd, projectDir string, projectScope bool, changes []scaffold.Change) error {
	purge, notes := scaffold.Purge(c.Purge, project.ConfigPath(projectDir), scaffold.StateDirs(projectDir, "", c.Getenv)...)
	changes, more, err := scaffold.Tidy(projectDir, append(changes, purge...), projectScope || c.Purge)
	if err != nil {
		return fmt.Errorf("%s: %w", cmd, err)
	}
	c.NoteDryRunWins()
	write := c.Writes() || !c.DryRun
	if !write {
		DryRunNote(c.IO.Out, cmd)
	} else if err := scaffold.Apply(changes); err != nil {
		return fmt.Errorf("%s: %w", cmd, err)
	}
	scaffold.Render(c.IO.Out, changes, append(notes, more...), write)
	return nil
}
