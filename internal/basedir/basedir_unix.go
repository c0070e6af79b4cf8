//go:build !darwin && !windows && !plan9

package basedir

import (
	"os"
	"path/filepath"
)

func home() string {
	if h := os.Getenv("HOME"); h != "" {
		return h
	}
	return "/"
}

func defaults(home string) dirs {
	return dirs{
		state:  filepath.Join(home, ".local", "state"),
		config: filepath.Join(home, ".config"),
		cache:  filepath.Join(home, ".cache"),
	}
}
