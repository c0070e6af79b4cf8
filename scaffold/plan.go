package scaffold

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	loopdsl "github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/project"
)

// Change is one file an install or uninstall creates, edits or removes.
type Change struct {
	Path   string
	Before []byte // nil: the file does not exist
	After  []byte // nil: the file is removed
	Note   string
	Dir    bool // a directory removed as a whole (purge)
	// IfEmpty: the directory is removed only if it is still empty when the
	// change is applied (one an uninstall's removals left empty).
	IfEmpty bool
}

// Render prints every change, then the notes, in the shape every install and
// uninstall shares: "would write PATH (note)" and the file's unified diff on a
// dry run, "wrote PATH (note)" once written ("would remove"/"removed" for
// files that go).
func Render(w io.Writer, changes []Change, notes []string, write bool) {
	for _, c := range changes {
		verb := "write"
		if c.Dir || c.After == nil {
			verb = "remove"
		}
		note := c.Note
		if link := LinkNote(c.Path); link != "" && c.After != nil && !c.Dir {
			note = strings.TrimPrefix(note+"; "+link, "; ")
		}
		Report(w, write, verb, c.Path, note)
		if c.Dir || write {
			continue
		}
		fmt.Fprint(w, LineDiff(c.Path, c.Before, c.After))
	}
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
}

// Report prints one change's line: "would VERB PATH (note)" on a dry run, the
// past tense ("wrote", "removed") once done.
func Report(w io.Writer, write bool, verb, path, note string) {
	line := "would " + verb
	if write {
		line = map[string]string{"write": "wrote", "remove": "removed"}[verb]
	}
	line += " " + path
	if note != "" {
		line += " (" + note + ")"
	}
	fmt.Fprintln(w, line)
}

// Apply writes the changes. Each file is replaced atomically.
func Apply(changes []Change) error {
	for _, c := range changes {
		switch {
		case c.Dir && c.IfEmpty:
			// Something written into it since the plan was made stays.
			if err := os.Remove(c.Path); err != nil && !errors.Is(err, os.ErrNotExist) && !isNotEmpty(c.Path) {
				return fmt.Errorf("remove %s: %w", c.Path, err)
			}
		case c.Dir:
			if err := os.RemoveAll(c.Path); err != nil {
				return fmt.Errorf("remove %s: %w", c.Path, err)
			}
		case c.After == nil:
			if err := os.Remove(c.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("remove %s: %w", c.Path, err)
			}
		default:
			if err := WriteFileAtomic(c.Path, c.After); err != nil {
				return fmt.Errorf("write %s: %w", c.Path, err)
			}
		}
	}
	return nil
}

// ReadOptional reads a configuration file that may not exist yet (nil, nil).
func ReadOptional(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return b, nil
}

// Purge is what an uninstall with --purge also removes: the loop file, the
// JSON Schema init wrote beside it, and the project's state directories (the
// event log's directory, and wherever else StateDirs finds the project's
// state), where they exist. Without purge it only notes that they are kept.
func Purge(purge bool, configPath string, stateDirs ...string) (changes []Change, notes []string) {
	if !purge {
		kept := []string{configPath}
		for _, d := range stateDirs {
			if _, err := os.Stat(d); err == nil {
				kept = append(kept, d)
			}
		}
		them := "them"
		if len(kept) == 1 {
			them = "it"
		}
		return nil, []string{fmt.Sprintf("kept %s (add --purge to remove %s)", strings.Join(kept, " and "), them)}
	}
	if b, err := os.ReadFile(configPath); err == nil {
		changes = append(changes, Change{Path: configPath, Before: b, Note: "the loop file (--purge)"})
	}
	schemaPath := filepath.Join(filepath.Dir(configPath), project.SchemaName)
	if b, err := os.ReadFile(schemaPath); err == nil {
		changes = append(changes, Change{Path: schemaPath, Before: b, Note: "the loop file's JSON Schema (--purge)"})
	}
	seen := map[string]bool{}
	for _, dir := range stateDirs {
		if st, err := os.Stat(dir); err == nil && st.Mode().IsRegular() {
			// A log's path, as Purge took before StateDirs: its directory.
			dir = filepath.Dir(dir)
		}
		if _, err := os.Stat(dir); err == nil && !seen[dir] {
			seen[dir] = true
			changes = append(changes, Change{Path: dir, Dir: true, Before: []byte{}, Note: "the project's state: its event log (--purge)"})
		}
	}
	return changes, nil
}

// StateDirs are the directories that may hold the state of the project at
// root: the one of the log its hooks use (logPath), <root>/.hook-loop, and
// its folder in the user's state directory (install --state user).
func StateDirs(root, logPath string, getenv func(string) string) []string {
	if getenv == nil {
		getenv = os.Getenv
	}
	dirs := []string{filepath.Join(root, project.StateDir), filepath.Dir(project.UserLogPath(root, getenv))}
	if logPath != "" && !slices.Contains(dirs, filepath.Dir(logPath)) {
		dirs = append([]string{filepath.Dir(logPath)}, dirs...)
	}
	return dirs
}

// Plan is what an install that copies files into a project (codex, opencode)
// or its uninstall will do: build it, show it with Render, run it with Carry.
type Plan struct {
	Dest        string // absolute project directory
	DestMissing bool   // Dest does not exist yet: install creates it
	Binary      string // the hook-loop executable the installed files run
	ConfigPath  string // the loop file the hooks use
	LogPath     string // the event log the hooks use (--state)
	Changes     []Change
	Notes       []string
}

// NewPlan starts the plan of an install (or its uninstall) into the project
// at destination ("" = "."): binary ("" = this executable) and the event log
// of --state state are resolved the same way for every harness whose files
// name them. getenv nil reads the process's environment.
func NewPlan(destination, binary, state string, getenv func(string) string) (Plan, error) {
	dest, missing, err := Destination(destination)
	if err != nil {
		return Plan{}, err
	}
	bin, err := HookLoopBinary(binary)
	if err != nil {
		return Plan{}, err
	}
	logPath, err := project.LogPathFor(dest, state, getenv)
	if err != nil {
		return Plan{}, err
	}
	return Plan{Dest: dest, DestMissing: missing, Binary: bin,
		ConfigPath: project.ConfigPath(dest), LogPath: logPath}, nil
}

// Render prints the plan: every file with its exact change, then the notes.
func (p *Plan) Render(w io.Writer, write bool) {
	Render(w, p.Changes, p.Notes, write)
}

// Apply writes the plan's changes, each file atomically, creating a missing
// destination first.
func (p *Plan) Apply() error {
	if p.DestMissing {
		if err := CreateDestination(p.Dest); err != nil {
			return err
		}
	}
	return Apply(p.Changes)
}

// Carry shows the plan (a dry run), or with write applies it and reports what
// it did.
func (p *Plan) Carry(w io.Writer, write bool) error {
	if !write {
		p.Render(w, false)
		return nil
	}
	if err := p.Apply(); err != nil {
		return err
	}
	if p.DestMissing {
		fmt.Fprintf(w, "created the destination %s\n", p.Dest)
	}
	p.Render(w, true)
	return nil
}

// UninstallFrom starts an uninstall's plan: its destination must exist; it
// reads the harness file path hook-loop wrote into (nil: there is none).
func (p *Plan) UninstallFrom(path string) ([]byte, error) {
	if p.DestMissing {
		return nil, fmt.Errorf("destination %s: not a directory", p.Dest)
	}
	return ReadOptional(path)
}

// PlanLoop starts an install's plan: a note on a missing destination, then
// the loop file, copied into the project: the --dsl file or the gallery
// profile, written to configPath unless a file is there, which is kept (the
// notes say so, and whether it loads). effective is the loop in force after
// the install.
func (p *Plan) PlanLoop(configPath, dslPath, profile string) (effective []byte, err error) {
	if p.DestMissing {
		p.Notes = append(p.Notes, DestinationNote(p.Dest))
	}
	// The DSL: --dsl FILE, else the profile. Either must load cleanly.
	dsl, source, err := LoopSource(dslPath, profile)
	if err != nil {
		return nil, err
	}
	cur, err := os.ReadFile(configPath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		p.Changes = append(p.Changes, Change{Path: configPath, After: dsl, Note: "the loop (" + source + ")"})
		return dsl, nil
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", configPath, err)
	case bytes.Equal(cur, dsl):
		p.Notes = append(p.Notes, fmt.Sprintf("%s already holds the %s loop", configPath, source))
	default:
		p.Notes = append(p.Notes, fmt.Sprintf("%s exists: kept as it is (the %s loop is not written; remove the file to replace it)", configPath, source))
	}
	if _, _, err := loopdsl.Load(configPath); err != nil {
		p.Notes = append(p.Notes, fmt.Sprintf("warning: the existing %s does not load: %v", configPath, err))
	}
	return cur, nil
}

// isNotEmpty reports whether dir holds something.
func isNotEmpty(dir string) bool {
	entries, err := os.ReadDir(dir)
	return err == nil && len(entries) > 0
}
