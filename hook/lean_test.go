package hook_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/eventlog/postgres"
	"github.com/hook-loop/hook-loop/hook"
)

// Without full.With (the lean hook binary), a user's lifecycle declaration is
// never skipped silently: the hook logs hooks.load_failed and says why, as for
// a declaration that does not load.
func TestLeanRunReportsLifecycleItCannotRun(t *testing.T) {
	t.Setenv(eventlog.StateDirEnv, t.TempDir())
	root := project(t, "")
	decl := filepath.Join(t.TempDir(), "hooks.json")
	if err := os.WriteFile(decl, []byte(`{"hooks": [{"name": "check", "command": ["true"], "on": ["phase_changed"]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := hook.New(hook.Deps{}).Run(context.Background(), hook.Request{Adapter: plainAdapter{}, Flags: hook.Flags{Event: "Stop", HooksConfig: decl},
		Stdin: strings.NewReader(`{"session":"s"}`), Cwd: root})
	if !strings.Contains(string(out.Stderr), "lifecycle hooks did not load") || !strings.Contains(string(out.Stderr), decl) {
		t.Errorf("stderr %q: want the declaration named as not loaded", out.Stderr)
	}
	data, err := os.ReadFile(filepath.Join(root, ".hook-loop", "events.jsonl"))
	if err != nil || !strings.Contains(string(data), `"hooks.load_failed"`) {
		t.Errorf("log has no hooks.load_failed (err %v):\n%s", err, data)
	}
	// No declaration: nothing to report.
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	out = hook.New(hook.Deps{}).Run(context.Background(), hook.Request{Adapter: plainAdapter{}, Flags: hook.Flags{Event: "Stop"},
		Stdin: strings.NewReader(`{"session":"s2"}`), Cwd: root})
	if strings.Contains(string(out.Stderr), "did not load") {
		t.Errorf("no declaration, yet: %q", out.Stderr)
	}
}

// Without a database driver, a store URL is a failure answered per the loop
// (fail_closed refuses the stop), naming the store without its password; the
// JSONL log is not written instead.
func TestLeanRunRefusesAStoreItCannotOpen(t *testing.T) {
	t.Setenv(eventlog.StateDirEnv, t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	root := project(t, `, "fail_closed": true`)
	out := hook.New(hook.Deps{}).Run(context.Background(), hook.Request{Adapter: plainAdapter{}, Flags: hook.Flags{Event: "Stop", Store: "postgres://ann:s3cret@db.example/loops"},
		Stdin: strings.NewReader(`{"session":"s"}`), Cwd: root})
	if !strings.HasPrefix(string(out.Stdout), "block:") {
		t.Errorf("stop answered %q, want a refusal (fail_closed)", out.Stdout)
	}
	if !strings.Contains(string(out.Stderr), "postgres://db.example/loops") || strings.Contains(string(out.Stderr)+string(out.Stdout), "s3cret") {
		t.Errorf("stderr %q: want the store named without its password", out.Stderr)
	}
	if _, err := os.Stat(filepath.Join(root, ".hook-loop", "events.jsonl")); err == nil {
		t.Error("the JSONL log was written in place of the database")
	}
}

// A user config may name a database ("store"): a binary that cannot read it
// refuses to guess the JSONL file.
func TestLeanStoreURLWithAUserConfig(t *testing.T) {
	cfg := t.TempDir()
	env := map[string]string{"XDG_CONFIG_HOME": cfg}
	getenv := func(k string) string { return env[k] }
	if url, err := hook.LeanStoreURL("", getenv); url != "" || err != nil {
		t.Fatalf("no config: %q, %v", url, err)
	}
	if err := os.MkdirAll(filepath.Join(cfg, "hook-loop"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "hook-loop", "config.yaml"), []byte("store: postgres://db/x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := hook.LeanStoreURL("", getenv); err == nil || !strings.Contains(err.Error(), "config.yaml") {
		t.Errorf("config present: err %v, want one naming config.yaml", err)
	}
	env[hook.StoreEnv] = " postgres://db/y "
	if url, err := hook.LeanStoreURL("", getenv); url != "postgres://db/y" || err != nil {
		t.Errorf("env: %q, %v", url, err)
	}
	if url, err := hook.LeanStoreURL("postgres://db/z", getenv); url != "postgres://db/z" || err != nil {
		t.Errorf("flag: %q, %v", url, err)
	}
}

// hookrun keeps the database budget without linking the driver: the two
// must agree.
func TestStoreTimeoutIsTheDriversTimeout(t *testing.T) {
	if hook.StoreTimeout != postgres.Timeout || hook.StoreTimeout > 10*time.Second {
		t.Errorf("hook.StoreTimeout %v, postgres.Timeout %v", hook.StoreTimeout, postgres.Timeout)
	}
}
