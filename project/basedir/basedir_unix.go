//go:build !darwin && !windows && !plan9

package basedir

import "path/filepath"

func defaults(home string) dirs {
	return dirs{
		state:  filepath.Join(home, ".local", "state"),
		config: filepath.Join(home, ".config"),
		cache:  filepath.Join(home, ".cache"),
	}
}
