package hook

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/loop/pin"
	"github.com/hook-loop/hook-loop/project/userconfig"
)

// agentEnv gives the engine what the guard needs to read a tool call as the
// agent's shell would run it: the environment the harness passed on (the
// agent's commands inherit it), the running binary (a command naming it runs
// hook-loop), and the lifecycle declaration with its executor files, which
// the agent may not change either.
func agentEnv(eng *engine.Engine, hooksConfig string) {
	env := os.Environ()
	eng.Vars = make(map[string]string, len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			eng.Vars[k] = v
		}
	}
	eng.Home = eng.Vars["HOME"]
	eng.Self = selfPath
	eng.OwnedPaths = append(slices.Clip(eng.OwnedPaths), userconfig.Files(hooksConfig, os.Getenv)...)
	if hooksConfig != "" {
		// The user's default config is read whatever --hooks-config says: its
		// "store" key chooses where the log lives.
		eng.OwnedPaths = append(eng.OwnedPaths, userconfig.Files("", os.Getenv)...)
	}
	if r, ok := eng.Lifecycle.(interface{ ExecutorFiles() []string }); ok {
		// The declaration the engine runs, loaded once for this hook.
		eng.OwnedPaths = append(eng.OwnedPaths, r.ExecutorFiles()...)
	}
	// The user's state: the logs' keys, and the logs an install --state user
	// keeps there.
	state := filepath.Clean(eventlog.StateDir())
	eng.OwnedPaths = append(eng.OwnedPaths, state+string(filepath.Separator))
	// With the key a script could append lines the MAC chain accepts; with a
	// pin it could learn what the loop checks before the person sees it.
	eng.SecretPaths = []string{filepath.Clean(eventlog.KeysDir()) + string(filepath.Separator),
		filepath.Clean(pin.Default().Dir) + string(filepath.Separator)}
}

// selfPath is the running binary, symbolic links resolved ("" when unknown),
// looked up once and only if the guard asks: most tool calls name no program
// by a path, and the lookup is a readlink and an lstat per directory.
var selfPath = sync.OnceValue(func() string {
	self, err := os.Executable()
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(self); err == nil {
		self = real
	}
	return self
})
