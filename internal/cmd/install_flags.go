package cmd

import (
	"os"
	"path/filepath"

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
