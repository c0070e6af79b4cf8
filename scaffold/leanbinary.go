package scaffold

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/hook-loop/hook-loop/project/userconfig"
	"github.com/hook-loop/hook-loop/version"
)

// LeanName is the lean hook binary's name (cmd/hook-loop-hook): installed
// beside hook-loop, it runs the *-hook commands at a fraction of hook-loop's
// start-up cost.
const LeanName = "hook-loop-hook"

// HookBinary is the binary an install writes into a harness's hook commands,
// given full, the hook-loop binary (HookLoopBinary): the lean hook binary
// beside it when that one will serve every event, else full. It will when it
// is there, executable and of the same build as this process (its --build is
// version.Build(): a stale one would answer with older rules). The lean hook
// hands to hook-loop, at every event, the hooks that need what only hook-loop
// carries — a database store (store, the install's --store, or
// $HOOK_LOOP_STORE) or a user config (lifecycle hooks, "store") — so it is
// not written for those: hook-loop answers them in one process instead of two.
// lean reports which was chosen; why says why not, for the install's output
// ("" when there is no lean binary at all).
func HookBinary(full, store string, getenv func(string) string) (bin string, lean bool, why string) {
	cand := filepath.Join(filepath.Dir(full), LeanName+filepath.Ext(full)) // .exe on Windows
	st, err := os.Stat(cand)
	if err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
		return full, false, ""
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	switch {
	case store != "" || getenv("HOOK_LOOP_STORE") != "":
		return full, false, LeanName + " not used: the log is in a database, which only hook-loop reaches"
	case userconfig.Present("", getenv):
		path, _ := userconfig.Path("", getenv)
		return full, false, LeanName + " not used: the user config " + path + " (lifecycle hooks, store) is read only by hook-loop"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, cand, "--build").Output()
	if err != nil || string(bytes.TrimSpace(out)) != version.Build() {
		return full, false, LeanName + " not used: " + cand + " is not of this build (install both from one build)"
	}
	return cand, true, ""
}
