//go:build !unix

package main

import (
	"errors"
	"os"
	"os/exec"
)

// execFull runs hook-loop in this process's place where a process cannot be
// replaced (Windows): a child with the same streams, whose exit status
// becomes this one's.
func execFull(path string, argv, envv []string) error {
	cmd := exec.Command(path, argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.Env = os.Stdin, os.Stdout, os.Stderr, envv
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		os.Exit(ee.ExitCode())
	}
	if err != nil {
		return err
	}
	os.Exit(0)
	return nil
}
