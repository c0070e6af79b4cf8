package basedir

import "path/filepath"

func defaults(home string) dirs {
	support := filepath.Join(home, "Library", "Application Support")
	return dirs{state: support, config: support, cache: filepath.Join(home, "Library", "Caches")}
}
