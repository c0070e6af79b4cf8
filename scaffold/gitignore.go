package scaffold

import (
	"bufio"
	"bytes"
	"io"
	"path/filepath"
	"strings"

	"github.com/hook-loop/hook-loop/project"
)

// gitignoreLine keeps hook-loop's state (the event log, its index, traces)
// out of commits: it is per checkout, and its MACs are keyed per machine.
const gitignoreLine = "/" + project.StateDir + "/"

// GitignoreChange is the edit that adds hook-loop's state directory to the
// project's .gitignore, or nil when a line already ignores it (in any of the
// usual spellings), so re-installs never duplicate it.
func GitignoreChange(projectDir string) (*Change, error) {
	path := filepath.Join(projectDir, ".gitignore")
	before, err := ReadOptional(path)
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(before))
	for sc.Scan() {
		switch strings.TrimSpace(sc.Text()) {
		case project.StateDir, project.StateDir + "/", "/" + project.StateDir, gitignoreLine:
			return nil, nil
		}
	}
	after := bytes.Clone(before)
	if len(after) > 0 && !bytes.HasSuffix(after, []byte("\n")) {
		after = append(after, '\n')
	}
	after = append(after, gitignoreLine+"\n"...)
	return &Change{Path: path, Before: before, After: after, Note: "keep hook-loop's event log out of git"}, nil
}

// WriteGitignore applies GitignoreChange (on write) and reports it in
// Render's shape: for installers that do not plan their changes as a list.
func WriteGitignore(w io.Writer, write bool, projectDir string) error {
	c, err := GitignoreChange(projectDir)
	if err != nil || c == nil {
		return err
	}
	if write {
		if err := Apply([]Change{*c}); err != nil {
			return err
		}
	}
	Render(w, []Change{*c}, nil, write)
	return nil
}
