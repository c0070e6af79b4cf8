package basedir

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/adrg/xdg"
)

// The same directories as xdg's, which computes them at init from the same
// environment.
func TestMatchesXDG(t *testing.T) {
	for _, env := range []map[string]string{
		{},
		{"XDG_STATE_HOME": "/s", "XDG_CONFIG_HOME": "/c", "XDG_CACHE_HOME": "/k"},
		{"XDG_STATE_HOME": "relative", "XDG_CONFIG_HOME": "~/c", "XDG_CACHE_HOME": "~"},
	} {
		home := t.TempDir()
		t.Setenv("HOME", home)
		if runtime.GOOS == "windows" {
			t.Setenv("USERPROFILE", home)
			t.Setenv("LOCALAPPDATA", filepath.Join(home, "AppData", "Local"))
		}
		for _, k := range []string{"XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"} {
			t.Setenv(k, env[k])
		}
		xdg.Reload()
		for name, got := range map[string][2]string{
			"state":  {StateHome(), xdg.StateHome},
			"config": {ConfigHome(), xdg.ConfigHome},
			"cache":  {CacheHome(), xdg.CacheHome},
		} {
			if got[0] != got[1] {
				t.Errorf("env %v: %s home %q, xdg says %q", env, name, got[0], got[1])
			}
		}
	}
}
