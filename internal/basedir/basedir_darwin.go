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
	support := filepath.Join(home, "Library", "Application Support")
	return dirs{state: support, config: support, cache: filepath.Join(home, "Library", "Caches")}
}
