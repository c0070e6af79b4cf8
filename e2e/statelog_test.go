package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/project"
)

// envValue is the last value env gives key, as exec would pass it.
func envValue(env []string, key string) (string, bool) {
	v, ok := "", false
	for _, kv := range env {
		if k, val, found := strings.Cut(kv, "="); found && k == key {
			v, ok = val, true
		}
	}
	return v, ok
}

// findProjectLog is the event log of the project at root: in the project
// (.hook-loop/events.jsonl) or in the user's state directory, as the test's
// environment or the harness's (env) names it — wherever install put it.
func findProjectLog(root string, env []string) (string, error) {
	fromEnv := func(k string) string {
		v, ok := envValue(env, k)
		if home, _ := envValue(env, "HOME"); k == "XDG_STATE_HOME" && !ok && home != "" {
			return filepath.Join(home, ".local", "state") // XDG's default under env's HOME
		}
		return v
	}
	// project.FindLog, as status and the board find it, under the harness's
	// environment and then the test's.
	candidates := []string{project.FindLog(root, fromEnv), project.FindLog(root, nil)}
	for _, c := range candidates {
		if _, err := os.Stat(c); err == nil {
			return c, nil
		}
	}
	return "", fmt.Errorf("no event log for %s; looked at %s", root, strings.Join(candidates, ", "))
}

// projectLogPath is findProjectLog or the test's end.
func projectLogPath(t *testing.T, root string, env []string) string {
	t.Helper()
	path, err := findProjectLog(root, env)
	if err != nil {
		t.Fatal(err)
	}
	return path
}
