package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/eventlog/logline"
	"github.com/hook-loop/hook-loop/loop/session"
	"github.com/hook-loop/hook-loop/testkit/pgtest"
)

func TestStoreMigrateBothWays(t *testing.T) {
	srv := pgtest.Start(t, pgtest.Options{})
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(root, ".hook-loop", "events.jsonl")
	for _, typ := range []string{eventlog.TypeLoopStarted, eventlog.TypeHookFired} {
		if err := session.Open(logPath).Update(func(tx session.Tx) error {
			_, err := tx.Append(eventlog.Event{SessionID: "s", EventType: typ})
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"HOOK_LOOP_PROJECT": "acme/widget"}
	run := func(to, from string) (string, error) {
		var out bytes.Buffer
		o := &StoreMigrateOptions{IO: &IOStreams{Out: &out, ErrOut: &out}, to: to, from: from, WorkDir: root,
			Getenv: func(k string) string { return env[k] }}
		err := runStoreMigrate(o)
		return out.String(), err
	}
	url := strings.Replace(srv.URL(), "hookloop@", "hookloop:pw@", 1)
	out, err := run(url, "")
	if err != nil || !strings.Contains(out, "copied 2 events") || strings.Contains(out, ":pw@") || !strings.Contains(out, "acme/widget") {
		t.Fatalf("to PostgreSQL: %q, %v", out, err)
	}
	if out, err = run(url, ""); err != nil || !strings.Contains(out, "copied 0 events") {
		t.Fatalf("again: %q, %v", out, err)
	}
	env[storeEnv] = url
	back := filepath.Join(t.TempDir(), "back.jsonl")
	if out, err = run(back, ""); err != nil || !strings.Contains(out, "copied 2 events") {
		t.Fatalf("back to a file: %q, %v", out, err)
	}
	// The same events, sealed under each log's own key.
	cores := func(path string) string {
		var out []string
		_ = session.Open(path).ScanRaw(nil, func(_ int, raw []byte, _ eventlog.Event) error {
			out = append(out, string(logline.Core(raw)))
			return nil
		})
		return strings.Join(out, "\n")
	}
	if got, want := cores(back), cores(logPath); got != want || got == "" {
		t.Fatalf("round trip:\n%s\nwant\n%s", got, want)
	}
	if r, err := session.Open(back).Verify(); err != nil || !r.OK() || !r.Keyed {
		t.Fatalf("the copy does not verify under its own key: %+v, %v", r, err)
	}
	// The copy and the original move on differently: the second to arrive is
	// refused with exit 1.
	for path, typ := range map[string]string{back: "elsewhere", logPath: "here"} {
		if err := session.Open(path).Update(func(tx session.Tx) error {
			_, err := tx.Append(eventlog.Event{SessionID: "s", EventType: typ})
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	if out, err = run(url, ""); err != nil || !strings.Contains(out, "copied 1 event to") {
		t.Fatalf("new event: %q, %v", out, err)
	}
	_, err = run(url, back)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 1 || !strings.Contains(ee.Message, "diverged") {
		t.Fatalf("diverged: %v", err)
	}
}
