package basedir

import (
	"os"
	"path/filepath"
)

func home() string {
	if h := os.Getenv("home"); h != "" {
		return h
	}
	return "/"
}

func defaults(home string) dirs {
	lib := filepath.Join(home, "lib")
	return dirs{state: filepath.Join(lib, "state"), config: lib, cache: filepath.Join(lib, "cache")}
}
