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

func TestHookLoopState(t *testing.T) {
	env := func(kv map[string]string) func(string) string {
		return func(k string) string { return kv[k] }
	}
	abs := filepath.Join(t.TempDir(), "st")
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{StateDirEnv: "/x/state", "XDG_STATE_HOME": abs}, "/x/state"},
		{map[string]string{"XDG_STATE_HOME": abs}, filepath.Join(abs, "hook-loop")},
		{map[string]string{"XDG_STATE_HOME": "~/st"}, filepath.Join(home(), "st", "hook-loop")},
		// A relative XDG_STATE_HOME is ignored, as xdg ignores it.
		{map[string]string{"XDG_STATE_HOME": "rel"}, filepath.Join(defaults(home()).state, "hook-loop")},
		{map[string]string{}, filepath.Join(defaults(home()).state, "hook-loop")},
	} {
		if got := HookLoopState(env(tt.env)); got != tt.want {
			t.Errorf("HookLoopState(%v) = %q, want %q", tt.env, got, tt.want)
		}
	}
}
