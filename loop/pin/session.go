package pin

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/session"
)

// File is what a hook read of the loop file: its bytes, or why it could not.
type File struct {
	Path string
	Data []byte
	Err  error

	// The loop Data holds, parsed once (Spec).
	parsed   bool
	spec     *dsl.Spec
	parseErr error
}

// Spec is the loop the file holds, parsed and validated at its first call
// only: a hook that needs the loop in several places reads it once.
func (f *File) Spec() (*dsl.Spec, error) {
	if f.Err != nil {
		return nil, f.Err
	}
	if !f.parsed {
		f.spec, _, f.parseErr = dsl.Parse(f.Path, f.Data)
		f.parsed = true
	}
	return f.spec, f.parseErr
}

// maxLoopFile bounds what a hook reads of a loop file (or a pin of one).
const maxLoopFile = dsl.MaxFileSize

// ReadFile reads the loop file at path. Only a regular file is read, without
// blocking on open and up to maxLoopFile bytes: a loop file swapped for a FIFO
// or a link to /dev/zero must not hang the hook past its harness's timeout
// (a killed hook lets the agent proceed); it reads as unreadable instead.
func ReadFile(path string) *File {
	data, err := readRegular(path)
	return &File{Path: path, Data: data, Err: err}
}

// Tx is what pinning needs of the log's transaction (session.Tx has it).
type Tx interface {
	session.Reader
	Append(e eventlog.Event) (eventlog.Event, error)
}

// stateOf is the state a record of session sid carries: the loop's state as the
// engine decides in it (the project's, for a project-scoped loop). A record
// must never carry the session's own state there: the fold takes a record's
// state as the loop's, and a joining session would reset the shared loop.
func stateOf(tx Tx, sid string, spec *dsl.Spec) string {
	return session.Scoped(tx, sid, spec.Definition.Scope == dsl.ScopeProject).State
}

// GoneError is a session with no pinned loop whose loop file cannot be read: a
// gate with no loop refuses, since the file is how the agent would open it.
type GoneError struct {
	Path string
	Err  error
}

func (e *GoneError) Error() string {
	reason := e.Err
	var pe *fs.PathError
	if errors.As(reason, &pe) {
		reason = pe.Err
	}
	return fmt.Sprintf("%s: cannot read DSL file: %v; this session has no pinned loop, so hook-loop refuses: restore it (`git checkout %s`) or uninstall hook-loop (`hook-loop <harness> uninstall --write`) — an install is undone by uninstall, never by deleting files", e.Path, reason, filepath.Base(e.Path))
}

func (e *GoneError) Unwrap() error { return e.Err }

// Judge returns the loop session sid is judged by, inside the log transaction
// tx. At the session's first event the file's loop is pinned (loop_pinned);
// later events use the pinned loop whatever the file holds now, and a file that
// went missing or changed is recorded once (loop_file_missing /
// loop_file_changed). notice is the line to tell the person ("" = nothing new).
func (s Store) Judge(tx Tx, sid string, f *File) (spec *dsl.Spec, notice string, err error) {
	v := tx.Session(sid)
	if v.Pinned == "" {
		if f.Err != nil {
			return nil, "", &GoneError{Path: f.Path, Err: f.Err}
		}
		if spec, err = f.Spec(); err != nil {
			return nil, "", err
		}
		hash, path, err := s.Put(f.Data)
		if err != nil {
			return nil, "", err
		}
		spec.Path = f.Path
		_, err = tx.Append(eventlog.Event{SessionID: sid, State: stateOf(tx, sid, spec), EventType: session.TypeLoopPinned, Actor: "hook-loop",
			Payload: map[string]any{"hash": hash, "path": path, "loop_file": f.Path, "loop_id": spec.Definition.ID}})
		return spec, "", err
	}
	observed := "missing"
	if f.Err == nil {
		observed = Hash(f.Data)
	}
	data := f.Data
	if observed != v.Pinned {
		if data, err = s.Get(v.Pinned); err != nil {
			return nil, "", fmt.Errorf("session %s is judged by its pinned loop %s: %w", sid, v.Pinned, err)
		}
	}
	want := observed
	if want == v.Pinned {
		want = ""
	}
	// data hashes to the pin, whose content passed dsl.Parse when it was pinned.
	if spec, err = dsl.ParseTrusted(f.Path, data); err != nil {
		return nil, "", fmt.Errorf("pinned loop %s: %w", v.Pinned, err)
	}
	spec.Path = f.Path
	if want != v.LoopFile {
		notice, err = s.noteFile(tx, sid, v, f, observed, stateOf(tx, sid, spec))
		if err != nil {
			return nil, "", err
		}
	}
	return spec, notice, nil
}

// noteFile records what the loop file holds now that it differs from the pin
// (or holds the pinned loop again).
func (s Store) noteFile(tx Tx, sid string, v session.View, f *File, observed, state string) (string, error) {
	typ, payload := session.TypeLoopFileChanged, map[string]any{"hash": observed, "pinned": v.Pinned, "loop_file": f.Path}
	notice := fmt.Sprintf("hook-loop: the loop file %s changed; session %s keeps its pinned loop %.12s (new sessions use the new file; `hook-loop reload --session %s` applies it to this one)", f.Path, sid, v.Pinned, sid)
	switch {
	case observed == "missing":
		typ, payload = session.TypeLoopFileMissing, map[string]any{"pinned": v.Pinned, "loop_file": f.Path, "why": f.Err.Error()}
		notice = fmt.Sprintf("hook-loop: the loop file %s is gone or unreadable; session %s keeps its pinned loop %.12s (restore it with `git checkout %s`)", f.Path, sid, v.Pinned, f.Path)
	case observed == v.Pinned:
		notice = fmt.Sprintf("hook-loop: the loop file %s holds session %s's pinned loop again", f.Path, sid)
	}
	_, err := tx.Append(eventlog.Event{SessionID: sid, State: state, EventType: typ, Actor: "hook-loop", Payload: payload})
	return notice, err
}

// Reload re-pins session sid to the loop file's current content, as a person
// asked (`hook-loop reload`); the file must hold a valid loop.
func (s Store) Reload(tx Tx, sid string, f *File) (hash string, err error) {
	if f.Err != nil {
		return "", fmt.Errorf("reload: %w", f.Err)
	}
	spec, err := f.Spec()
	if err != nil {
		return "", fmt.Errorf("reload: %w", err)
	}
	hash, path, err := s.Put(f.Data)
	if err != nil {
		return "", err
	}
	v := tx.Session(sid)
	_, err = tx.Append(eventlog.Event{SessionID: sid, State: stateOf(tx, sid, spec), EventType: session.TypeLoopReloaded, Actor: "person",
		Payload: map[string]any{"hash": hash, "path": path, "loop_file": f.Path, "loop_id": spec.Definition.ID, "previous": v.Pinned}})
	return hash, err
}

// Check reports what Judge would refuse at a session's first event, without a
// log: an unreadable file is a *GoneError when a hook was installed for it
// (installed: the hook names the file explicitly), else the plain read error
// (hook-loop is not set up here); an invalid loop is its *dsl.LoadError.
func Check(f *File, installed bool) error {
	if f.Err != nil {
		if installed || !errors.Is(f.Err, fs.ErrNotExist) {
			// A loop file that is there but cannot be read as one (a FIFO, a
			// link to a device) is refused, never read again.
			return &GoneError{Path: f.Path, Err: f.Err}
		}
		_, _, err := dsl.Load(f.Path)
		return err
	}
	_, err := f.Spec()
	return err
}
