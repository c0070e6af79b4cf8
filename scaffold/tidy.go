package scaffold

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hook-loop/hook-loop/project"
)

// Tidy completes an uninstall's changes so that it leaves the project at
// dest as the install found it: a harness file left holding nothing (an empty
// JSON object, or only space) is removed instead of written; the project's
// .gitignore loses the line install added, once no state directory stays
// behind for it to hide (.gitignore itself goes when that empties it); and
// the directories below dest that the removals leave empty go too.
// projectScope is false for an uninstall from the user's files: the
// project's .gitignore is then not its to touch.
func Tidy(dest string, changes []Change, projectScope bool) ([]Change, []string, error) {
	var notes []string
	for i, c := range changes {
		if c.After != nil && !c.Dir && holdsNothing(c.After) {
			changes[i].After = nil
			changes[i].Note = strings.TrimPrefix(c.Note+"; nothing else is left in it, so the file goes", "; ")
		}
	}
	if projectScope {
		stateDir := filepath.Join(dest, project.StateDir)
		_, err := os.Stat(stateDir)
		stays := err == nil && !removes(changes, stateDir)
		c, err := gitignoreRemoval(dest)
		switch {
		case err != nil:
			return nil, nil, err
		case c != nil && stays:
			notes = append(notes, fmt.Sprintf("kept %s in %s: %s still holds the event log (--purge removes both)", gitignoreLine, c.Path, stateDir))
		case c != nil:
			changes = append(changes, *c)
		}
	}
	return append(changes, emptiedDirs(dest, changes)...), notes, nil
}

// holdsNothing reports whether a file's new content is nothing at all: only
// space, or a JSON object with no keys.
func holdsNothing(b []byte) bool {
	t := bytes.TrimSpace(b)
	if len(t) == 0 {
		return true
	}
	var m map[string]json.RawMessage
	return json.Unmarshal(t, &m) == nil && m != nil && len(m) == 0
}

// removes reports whether changes remove path (a file, or a whole directory).
func removes(changes []Change, path string) bool {
	for _, c := range changes {
		if c.Path == path && (c.Dir || c.After == nil) {
			return true
		}
	}
	return false
}

// gitignoreRemoval is the edit that takes the line GitignoreChange adds out
// of the project's .gitignore (its exact spelling: a line the user wrote in
// another spelling is theirs), or nil when there is no such line.
func gitignoreRemoval(dest string) (*Change, error) {
	path := filepath.Join(dest, ".gitignore")
	before, err := ReadOptional(path)
	if err != nil || before == nil {
		return nil, err
	}
	var after bytes.Buffer
	found := false
	sc := bufio.NewScanner(bytes.NewReader(before))
	for sc.Scan() {
		if strings.TrimRight(sc.Text(), "\r") == gitignoreLine {
			found = true
			continue
		}
		after.WriteString(sc.Text() + "\n")
	}
	if !found {
		return nil, nil
	}
	c := &Change{Path: path, Before: before, After: after.Bytes(), Note: "the line install added: nothing of hook-loop's is left to ignore"}
	if holdsNothing(c.After) {
		c.After, c.Note = nil, "install made it for its one line, which goes"
	}
	return c, nil
}

// emptiedDirs are the directories strictly below dest that hold nothing once
// changes are applied, deepest first: the folders install made for its
// files (.claude/, .codex/, .pi/extensions/, ...).
func emptiedDirs(dest string, changes []Change) []Change {
	gone := map[string]bool{}
	var order []string
	for _, c := range changes {
		if c.Dir || c.After == nil {
			gone[c.Path] = true
			order = append(order, c.Path)
		}
	}
	var out []Change
	for i := 0; i < len(order); i++ {
		dir := filepath.Dir(order[i])
		rel, err := filepath.Rel(dest, dir)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || gone[dir] {
			continue
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		empty := true
		for _, e := range entries {
			empty = empty && gone[filepath.Join(dir, e.Name())]
		}
		if empty {
			gone[dir] = true
			order = append(order, dir)
			out = append(out, Change{Path: dir, Dir: true, IfEmpty: true, Before: []byte{}, Note: "left empty"})
		}
	}
	return out
}
