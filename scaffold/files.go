package scaffold

import (
	"errors"
	"fmt"
	"github.com/hook-loop/hook-loop/project/regfile"
	"io/fs"
	"os"
	"path/filepath"

	loopdsl "github.com/hook-loop/hook-loop/loop/dsl"

	"github.com/hook-loop/hook-loop/gallery"
)

// WriteFileAtomic writes data to path through a temporary file in the same
// directory, so a crash never leaves a half-written hook configuration. An
// existing file keeps its permissions; a new one is 0644.
//
// A symlink at path is kept: the file it points to is written (through
// every link of a chain), never the link replaced by a file, so a settings
// file kept in a dotfiles repository stays where it is.
func WriteFileAtomic(path string, data []byte) error {
	if target, ok, err := LinkTarget(path); err != nil {
		return err
	} else if ok {
		path = target
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	return regfile.WriteAtomic(path, data, mode)
}

// maxLinkHops bounds a chain of symlinks, as Linux does.
const maxLinkHops = 40

// LinkTarget returns the file a symlink at path finally points to (which
// need not exist yet) and true, or false when path is no symlink.
func LinkTarget(path string) (string, bool, error) {
	p := path
	for hops := 0; ; hops++ {
		st, err := os.Lstat(p)
		if err != nil || st.Mode()&os.ModeSymlink == 0 {
			return p, p != path, nil
		}
		if hops == maxLinkHops {
			return "", false, fmt.Errorf("%s: too many levels of symbolic links", path)
		}
		to, err := os.Readlink(p)
		if err != nil {
			return "", false, err
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(p), to)
		}
		p = to
	}
}

// LinkNote says, for a dry run, that writing path edits the target of a
// link ("" when path is no symlink).
func LinkNote(path string) string {
	if target, ok, err := LinkTarget(path); err == nil && ok {
		return fmt.Sprintf("edits the target of the link %s → %s", path, target)
	}
	return ""
}

// LoopSource is the loop file an install writes: --dsl FILE (which must load
// cleanly), else the gallery profile (default: gallery.Default). source says
// which, for the install's report.
func LoopSource(dslPath, profile string) (dsl []byte, source string, err error) {
	if dslPath != "" {
		if dsl, err = os.ReadFile(dslPath); err != nil {
			return nil, "", fmt.Errorf("--dsl: %w", err)
		}
		if _, _, err := loopdsl.Load(dslPath); err != nil {
			return nil, "", fmt.Errorf("--dsl %s: %w", dslPath, err)
		}
		return dsl, dslPath, nil
	}
	if profile == "" {
		profile = gallery.Default
	}
	if dsl, err = gallery.Get(profile); err != nil {
		return nil, "", fmt.Errorf("--profile: %w", err)
	}
	return dsl, "profile " + profile, nil
}

// HookLoopBinary is the executable installed hooks run: override, else this very
// binary; absolute, with symlinks resolved, so the hooks never depend on PATH or
// on the directory the harness starts them in.
func HookLoopBinary(override string) (string, error) {
	bin := override
	if bin == "" {
		var err error
		if bin, err = os.Executable(); err != nil {
			return "", fmt.Errorf("find the hook-loop binary: %w", err)
		}
	}
	bin, err := filepath.Abs(bin)
	if err != nil {
		return "", err
	}
	if r, err := filepath.EvalSymlinks(bin); err == nil {
		bin = r
	}
	return bin, nil
}

// Destination makes an install's --destination absolute ("" = ".") and
// checks it. A missing directory is no error: the Python prototype creates
// it, so an install notes it (DestinationNote) and creates it on --write
// (CreateDestination). Anything else than a directory there is refused.
func Destination(dir string) (abs string, missing bool, err error) {
	if dir == "" {
		dir = "."
	}
	if abs, err = filepath.Abs(dir); err != nil {
		return "", false, fmt.Errorf("destination %s: %w", dir, err)
	}
	st, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return abs, true, nil
	case err != nil:
		return "", false, fmt.Errorf("destination %s: %w", abs, err)
	case !st.IsDir():
		return "", false, fmt.Errorf("destination %s: not a directory", abs)
	}
	return abs, false, nil
}

// DestinationNote is the plan's note for a destination that does not exist.
func DestinationNote(dest string) string {
	return fmt.Sprintf("note: destination %s does not exist: --write creates it", dest)
}

// CreateDestination creates a missing destination before the install's
// files are written into it.
func CreateDestination(dest string) error {
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return fmt.Errorf("create destination %s: %w", dest, err)
	}
	return nil
}
