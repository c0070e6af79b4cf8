package hook

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/project"
)

// MaxInput caps what a hook reads from stdin. Real payloads are a few KiB; a
// PostToolUse with a huge tool output is the largest seen. Past the cap the
// input is refused rather than read into memory.
const MaxInput = 8 << 20

func readInput(r io.Reader) ([]byte, error) {
	if r == nil {
		return nil, errors.New("no input: the hook expects the event JSON on stdin")
	}
	data, err := io.ReadAll(io.LimitReader(r, MaxInput+1))
	if err != nil {
		return nil, fmt.Errorf("read stdin: %w", err)
	}
	if len(data) > MaxInput {
		return nil, &shapeError{fmt.Errorf("stdin is larger than the %d MiB cap; refusing to read it", MaxInput>>20)}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("stdin is empty: the hook expects the event JSON on stdin")
	}
	if err := harness.CheckNesting("stdin", data, harness.MaxStdinNesting); err != nil {
		return nil, &shapeError{err}
	}
	return data, nil
}

// shapeError is input refused for its shape (too large, nested too deep):
// beside the harness's own few fields, what makes a payload large or deep is
// a tool's input, which the agent writes.
type shapeError struct{ error }

func (e *shapeError) Unwrap() error { return e.error }

type resolved struct{ root, config, log string }

// resolvePaths finds the project's root, loop file and log from the flags
// and the hook's working directory.
func resolvePaths(f Flags, cwd string, getenv func(string) string) resolved {
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	abs := func(p string) string {
		if p != "" && !filepath.IsAbs(p) {
			return filepath.Join(cwd, p)
		}
		return p
	}
	r := resolved{config: abs(f.ConfigPath), log: abs(f.LogPath)}
	switch {
	case r.config != "":
		// An explicit loop file anchors the project: installs write absolute paths
		// so a hook started in a subdirectory still finds its loop.
		r.root = filepath.Dir(r.config)
	default:
		r.root = project.Root(cwd)
		r.config = project.ConfigPath(r.root)
	}
	if r.log == "" && f.State == project.StateUser {
		r.log = project.UserLogPath(r.root, getenv)
	}
	if r.log == "" {
		r.log = project.LogPath(r.root)
	}
	return r
}
