// Package roster is the user's registry of the projects whose hooks ran: one
// small file per (project, log) in hook-loop's user state directory, so that
// `status --all`, `board --all` and `notify` find every project's log without
// being told. A hook only ever creates a missing entry (one stat when it
// exists); readers prune the entries whose project or log is gone.
package roster

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hook-loop/hook-loop/project/regfile"
)

// Dir is the registry's folder inside the user state directory.
const Dir = "registry"

// Entry is one project whose hooks ran.
type Entry struct {
	Root   string `json:"root"`
	Config string `json:"config"`
	// Log is the JSONL log its hooks write; "" when they write a database
	// store (Store), which `--all` reads through the store itself.
	Log   string `json:"log,omitempty"`
	Store bool   `json:"store,omitempty"`

	path string // the entry's own file
}

// maxEntry bounds what is read of one entry file.
const maxEntry = 64 << 10

func entryPath(stateDir string, e Entry) string {
	sum := sha256.Sum256([]byte(e.Root + "\x00" + e.Config + "\x00" + e.Log))
	return filepath.Join(stateDir, Dir, hex.EncodeToString(sum[:12])+".json")
}

// Register records e unless it is recorded already. It is what a hook does
// after its event was logged: a stat when the entry exists, else one small
// atomic write. Its error is for tests; hooks ignore it.
func Register(stateDir string, e Entry) error {
	path := entryPath(stateDir, e)
	if _, err := os.Lstat(path); err == nil {
		return nil
	}
	data, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return regfile.WriteAtomic(path, append(data, '\n'), 0o600)
}

// List returns the registered projects, by root, removing the entries whose
// project root or log is gone. An entry that does not parse is skipped (and
// named in the returned warnings), never removed: it may be half-way through
// a hand edit. Nor is one whose log is not a regular file (a FIFO would
// make every reader wait): it is skipped with a warning.
func List(stateDir string) (entries []Entry, warnings []string, err error) {
	dir := filepath.Join(stateDir, Dir)
	names, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", dir, err)
	}
	for _, n := range names {
		if !strings.HasSuffix(n.Name(), ".json") || !n.Type().IsRegular() {
			continue
		}
		path := filepath.Join(dir, n.Name())
		data, err := regfile.ReadFile(path, maxEntry)
		if err != nil {
			continue // removed meanwhile, or not a file
		}
		var e Entry
		if err := json.Unmarshal(data, &e); err != nil || e.Root == "" || (e.Log == "" && !e.Store) {
			warnings = append(warnings, fmt.Sprintf("%s: expected {\"root\": string, \"config\": string, \"log\": string}", path))
			continue
		}
		e.path = path
		if gone(e) {
			_ = os.Remove(path)
			continue
		}
		if !regularLog(e) {
			// The registry is the agent's to write too: a log that is a FIFO,
			// device or link would make a reader wait or read elsewhere. It is
			// skipped, not removed, as it may be replaced by a file meanwhile.
			warnings = append(warnings, fmt.Sprintf("%s: log %s is not a regular file; skipped", path, e.Log))
			continue
		}
		entries = append(entries, e)
	}
	sort.Slice(entries, func(a, b int) bool {
		if entries[a].Root != entries[b].Root {
			return entries[a].Root < entries[b].Root
		}
		return entries[a].Log < entries[b].Log
	})
	return entries, warnings, nil
}

// gone reports whether an entry's project root, or its JSONL log, no longer
// exists. A database-store entry lives as long as its root does.
func gone(e Entry) bool {
	if _, err := os.Stat(e.Root); errors.Is(err, fs.ErrNotExist) {
		return true
	}
	if e.Log == "" {
		return false
	}
	_, err := os.Stat(e.Log)
	return errors.Is(err, fs.ErrNotExist)
}

// regularLog reports whether e's log is a regular file (not followed through a
// link). A database-store entry has no log and passes.
func regularLog(e Entry) bool {
	if e.Log == "" {
		return true
	}
	fi, err := os.Lstat(e.Log)
	return err == nil && fi.Mode().IsRegular()
}
