package scaffold

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hook-loop/hook-loop/gallery"
	loopdsl "github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/project"
)

// ShellQuote quotes s for /bin/sh, which is how the harnesses run a command hook.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ResolveLoop resolves the loop file an install points its hooks at: --dsl in
// place, else the project's hook-loop.json. Every installer treats an existing
// hook-loop.json the same way: it is kept as it is (a note says so when a
// --profile was asked for); only when it is absent is the gallery profile
// (default gallery.Default) written (data non-nil: it must be written). The
// loop must load cleanly.
func ResolveLoop(projectDir, dsl, profile string) (path string, data []byte, spec *loopdsl.Spec, note string, err error) {
	if dsl != "" {
		if path, err = filepath.Abs(dsl); err != nil {
			return "", nil, nil, "", err
		}
	} else {
		path = project.ConfigPath(projectDir)
		name := profile
		if name == "" {
			name = gallery.Default
		}
		want, err := gallery.Get(name)
		if err != nil {
			return "", nil, nil, "", fmt.Errorf("--profile %s: %w", name, err)
		}
		switch old, err := os.ReadFile(path); {
		case errors.Is(err, fs.ErrNotExist):
			data = want
		case err != nil:
			return "", nil, nil, "", fmt.Errorf("read %s: %w", path, err)
		case bytes.Equal(old, want):
			note = fmt.Sprintf("%s already holds the profile %s loop", path, name)
		case profile != "":
			note = fmt.Sprintf("%s exists: kept as it is (the profile %s loop is not written; remove the file to replace it)", path, name)
		}
	}
	if data != nil {
		spec, _, err = loopdsl.Parse(path, data)
	} else {
		spec, _, err = loopdsl.Load(path)
	}
	if err != nil {
		return "", nil, nil, "", fmt.Errorf("the loop is not valid, nothing written: %w", err)
	}
	return path, data, spec, note, nil
}

// GJSONEscape escapes a key for a gjson/sjson path (event names hold no
// special character today; a future one must not split the path).
func GJSONEscape(s string) string {
	r := strings.NewReplacer(".", `\.`, "*", `\*`, "?", `\?`, "|", `\|`, "#", `\#`, "@", `\@`)
	return r.Replace(s)
}

// FlagValue is the value of flag name in an installed hook command's words
// ("--config F" or "--config=F"), "" when absent.
func FlagValue(args []string, name string) string {
	for i, a := range args {
		if a == name && i+1 < len(args) {
			return args[i+1]
		}
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v
		}
	}
	return ""
}

// ProfileNames lists the gallery's loops for a --profile flag's usage.
func ProfileNames() string { return strings.Join(gallery.Names(), ", ") }

// WriteProfile writes the gallery loop ResolveLoop returned (data nil: there is
// nothing to write) and reports it in Render's shape, or what it would write
// (with its diff) on a dry run; note is ResolveLoop's note, printed when set.
func WriteProfile(w io.Writer, write bool, path string, data []byte, id, note string) error {
	if note != "" {
		fmt.Fprintln(w, note)
	}
	if data == nil {
		return nil
	}
	if write {
		if err := WriteFileAtomic(path, data); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	Render(w, []Change{{Path: path, After: data, Note: fmt.Sprintf("loop %q from the gallery", id)}}, nil, write)
	return nil
}
