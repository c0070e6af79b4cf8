package basedir

import (
	"os"
	"path/filepath"
)

// home is xdg's FOLDERID_Profile, which USERPROFILE names.
func home() string {
	if h := os.Getenv("USERPROFILE"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// defaults are under xdg's FOLDERID_LocalAppData, which LOCALAPPDATA names.
func defaults(home string) dirs {
	local := os.Getenv("LOCALAPPDATA")
	if local == "" {
		local = filepath.Join(home, "AppData", "Local")
	}
	return dirs{state: local, config: local, cache: filepath.Join(local, "cache")}
}
