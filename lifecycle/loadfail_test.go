//go:build unix

package lifecycle_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/lifecycle"
)

// A failure known at load — an entry whose file is not there, a plain-http
// remote — is one hooks.load_failed naming the entry's JSON path,
// not a hooks.failed at every point; a required entry that did not load still
// holds the session.
func TestLoadFailuresAreRecordedOnceAtLoad(t *testing.T) {
	for _, tc := range []struct {
		name, hooks, why string
		held             bool
	}{
		{"missing path", `[{"name":"gone","path":"hooks/gone.py"}]`, `hooks[0] ("gone").path: `, false},
		{"missing command", `[{"name":"off","command":["true"],"enabled":false},{"name":"gone","command":["./bin/nothing-here"]}]`, `hooks[1] ("gone").command: `, false},
		{"plain http", `[{"name":"remote","url":"http://hooks.example/loop","tokenEnv":"T"}]`, `hooks[0] ("remote").url: refused: http://`, false},
		{"required missing path", `[{"name":"roster","path":"roster.py","required":true,"on":["loop_start"]}]`, `hooks[0] ("roster").path: `, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
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

// The hook path starts no python3 to look a module up: one found neither
// beside the declaration nor on PYTHONPATH fails at its own call
// (hooks.failed), while the full Check (hooks show/test, doctor) still asks
// Python and reports it as not loadable.
func TestHookPathDoesNotAskPythonForAModule(t *testing.T) {
	real, _ := exec.LookPath("python3")
	bin := t.TempDir()
	calls := filepath.Join(bin, "calls")
	script := "#!/bin/sh\nprintf '%s\\n' \"$*\" >> " + calls + "\n"
	if real != "" {
		script += "exec " + real + " \"$@\"\n"
	} else {
		script += "exit 1\n"
	}
	if err := os.WriteFile(filepath.Join(bin, "python3"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("PYTHONPATH", "")

	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "hook-loop.json"), []byte(gatedLoop), 0o644)
	cfg := filepath.Join(t.TempDir(), "config.json")
	os.WriteFile(cfg, []byte(`{"hooks":[{"name":"mod","module":"no_such_pkg_hl28.hooks"}]}`), 0o644)
	codexHook(t, root, cfg, fmt.Sprintf(sessionStartPayload, "s1", root))
	codexHook(t, root, cfg, fmt.Sprintf(stopPayload, "s1", root))
	var loadFailed, failed int
	for _, l := range readLog(t, filepath.Join(root, ".hook-loop", "events.jsonl")) {
		switch l.EventType {
		case "hooks.load_failed":
			loadFailed++
		case "hooks.failed":
			failed++
		}
	}
	if loadFailed != 0 || failed == 0 {
		t.Errorf("%d hooks.load_failed and %d hooks.failed records, want none and some", loadFailed, failed)
	}
	b, _ := os.ReadFile(calls)
	if strings.Contains(string(b), "find_spec") {
		t.Errorf("a hook started python3 to look the module up:\n%s", b)
	}

	r, _, err := lifecycle.LoadConfig(cfg, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	rec := r.Check()
	if rec == nil {
		t.Fatal("the full Check found the missing module loadable")
	}
	if why, _ := rec.Payload["why"].(string); !strings.Contains(why, `hooks[0] ("mod").module: no_such_pkg_hl28.hooks is found neither`) {
		t.Errorf("Check why = %q", why)
	}
	if b, _ := os.ReadFile(calls); !strings.Contains(string(b), "find_spec") {
		t.Errorf("the full Check did not ask python3:\n%s", b)
	}
}
