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
	"github.com/hook-loop/hook-loop/internal/project"
	loopdsl "github.com/hook-loop/hook-loop/loop/dsl"
)

// ShellQuote quotes s for /bin/sh, which is how the harnesses run a command hook.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ResolveLoop resolves the loop file an install points its hooks at: --dsl in
// place, --profile written into the project (data non-nil when it must be
// written), or the project's own hook-loop.json. It must load cleanly.
func ResolveLoop(projectDir, dsl, profile string) (path string, data []byte, spec *loopdsl.Spec, err error) {
	switch {
	case dsl != "":
		if path, err = filepath.Abs(dsl); err != nil {
			return "", nil, nil, err
		}
	case profile != "":
		path = project.ConfigPath(projectDir)
		if data, err = gallery.Get(profile); err != nil {
			return "", nil, nil, fmt.Errorf("--profile %s: %w", profile, err)
		}
		if old, err := os.ReadFile(path); err == nil && !bytes.Equal(old, data) {
			return "", nil, nil, fmt.Errorf("%s already exists and differs from profile %s: keep it with --dsl %s, or move it away", path, profile, path)
		} else if err == nil {
			data = nil // already there, unchanged
		}
	default:
		path = project.ConfigPath(projectDir)
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return "", nil, nil, fmt.Errorf("no loop file at %s: pass --dsl FILE or --profile NAME", path)
		}
	}
	if data != nil {
		spec, _, err = loopdsl.Parse(path, data)
	} else {
		spec, _, err = loopdsl.Load(path)
	}
	if err != nil {
		return "", nil, nil, fmt.Errorf("the loop is not valid, nothing written: %w", err)
	}
	return path, data, spec, nil
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
// nothing to write) and says so, or what it would write on a dry run.
func WriteProfile(w io.Writer, write bool, path string, data []byte, id string) error {
	if data == nil {
		return nil
	}
	verb := "would write"
	if write {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		verb = "wrote"
	}
	fmt.Fprintf(w, "%s %s (loop %q from the gallery)\n", verb, path, id)
	return nil
}
