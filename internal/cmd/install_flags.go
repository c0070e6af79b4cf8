package cmd

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hook-loop/hook-loop/gallery"
	"github.com/hook-loop/hook-loop/internal/project"
	loopdsl "github.com/hook-loop/hook-loop/loop/dsl"

	"github.com/urfave/cli/v2"
)

// The flags every install and uninstall command shares, so that the four
// harnesses' commands read and behave alike: a dry run unless --write.

func dryRunWriteFlags(dryRun, write *bool) []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "dry-run", Value: true, Usage: "print the files and the exact changes without writing (the default)", Destination: dryRun},
		&cli.BoolFlag{Name: "write", Usage: "write the changes", Destination: write},
	}
}

func recordFlag(record *bool) cli.Flag {
	return &cli.BoolFlag{Name: "record", Usage: "hooks also keep every raw input in .hook-loop/trace.jsonl, for hook-loop replay", Destination: record}
}

// projectDirOf is --destination made absolute (default: the working directory).
func projectDirOf(destination string) (string, error) {
	if destination == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		destination = wd
	}
	return filepath.Abs(destination)
}

// installLoop resolves the loop file an install points its hooks at: --dsl in
// place, --profile written into the project (data non-nil when it must be
// written), or the project's own hook-loop.json. It must load cleanly.
func installLoop(projectDir, dsl, profile string) (path string, data []byte, spec *loopdsl.Spec, err error) {
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
