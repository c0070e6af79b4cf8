//go:build unix

package lifecycle_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A failure known at load — an entry whose file or module is not there, a
// plain-http remote — is one hooks.load_failed naming the entry's JSON path,
// not a hooks.failed at every point; a required entry that did not load still
// holds the session.
func TestLoadFailuresAreRecordedOnceAtLoad(t *testing.T) {
	for _, tc := range []struct {
		name, hooks, why string
		held             bool
	}{
		{"missing path", `[{"name":"gone","path":"hooks/gone.py"}]`, `hooks[0] ("gone").path: `, false},
		{"missing command", `[{"name":"off","command":["true"],"enabled":false},{"name":"gone","command":["./bin/nothing-here"]}]`, `hooks[1] ("gone").command: `, false},
		{"missing module", `[{"name":"mod","module":"no_such_pkg_hl28.hooks"}]`, `hooks[0] ("mod").module: no_such_pkg_hl28.hooks is found neither`, false},
		{"plain http", `[{"name":"remote","url":"http://hooks.example/loop","tokenEnv":"T"}]`, `hooks[0] ("remote").url: refused: http://`, false},
		{"required missing path", `[{"name":"roster","path":"roster.py","required":true,"on":["loop_start"]}]`, `hooks[0] ("roster").path: `, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if strings.Contains(tc.hooks, "module") {
				needPython(t)
			}
			root := t.TempDir()
			os.WriteFile(filepath.Join(root, "hook-loop.json"), []byte(gatedLoop), 0o644)
			cfg := filepath.Join(t.TempDir(), "config.json")
			os.WriteFile(cfg, []byte(`{"hooks":`+tc.hooks+`}`), 0o644)
			codexHook(t, root, cfg, fmt.Sprintf(sessionStartPayload, "s1", root))
			out := codexHook(t, root, cfg, fmt.Sprintf(stopPayload, "s1", root))
			codexHook(t, root, cfg, fmt.Sprintf(stopPayload, "s1", root))
			var loadFailed, failed int
			for _, l := range readLog(t, filepath.Join(root, ".hook-loop", "events.jsonl")) {
				switch l.EventType {
				case "hooks.load_failed":
					loadFailed++
					if why, _ := l.Payload["why"].(string); !strings.Contains(why, tc.why) {
						t.Errorf("hooks.load_failed why = %q, want %q", why, tc.why)
					}
				case "hooks.failed":
					if !tc.held {
						failed++
					}
				}
			}
			if loadFailed != 1 || failed != 0 {
				t.Errorf("%d hooks.load_failed and %d hooks.failed records, want 1 and 0", loadFailed, failed)
			}
			if tc.held && !strings.Contains(string(out.Stdout), "roster") {
				t.Errorf("a required hook that did not load let the session go unheld: %s", out.Stdout)
			}
		})
	}
}
