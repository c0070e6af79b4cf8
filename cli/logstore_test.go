package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/eventlog/postgres"
	"github.com/hook-loop/hook-loop/loop/session"
	"github.com/hook-loop/hook-loop/testkit/pgtest"
)

// With the store in the user config, status, log, log verify and log --follow
// read the project's log in PostgreSQL, not a file.
func TestReadersUseTheStore(t *testing.T) {
	srv := pgtest.Start(t, pgtest.Options{})
	t.Setenv(eventlog.StateDirEnv, t.TempDir())
	root, cfgHome := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(cfgHome, "hook-loop"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeCfg := func(doc string) {
		if err := os.WriteFile(filepath.Join(cfgHome, "hook-loop", "config.json"), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeCfg(`{"store": "` + srv.URL() + `"}`)
	env := map[string]string{"XDG_CONFIG_HOME": cfgHome, "HOOK_LOOP_PROJECT": "acme/readers"}
	getenv := func(k string) string { return env[k] }
	s, err := postgres.Open[session.View](srv.URL(), postgres.Options{Project: "acme/readers"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	add := func(sid, typ string) {
		t.Helper()
		if err := s.Update(func(tx *pgTx) error {
			_, err := tx.Append(eventlog.Event{SessionID: sid, EventType: typ, State: "plan", Payload: map[string]any{"initial_state": "plan"}})
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	add("sess-one", eventlog.TypeSessionInitialized)
	add("sess-two", eventlog.TypeSessionInitialized)

	var out, errOut syncBuffer
	io := &IOStreams{Out: &out, ErrOut: &errOut}
	if err := runStatus(&StatusOptions{IO: io, WorkDir: root, Getenv: getenv}); err != nil || !strings.Contains(out.String(), "sess-one") || !strings.Contains(out.String(), "sess-two") {
		t.Fatalf("status: %v\n%s%s", err, out.String(), errOut.String())
	}
	out.b.Reset()
	if err := runLogVerify(&LogOptions{IO: io, WorkDir: root, Getenv: getenv}); err != nil || !strings.Contains(out.String(), "ok: 2 events in 2 sessions") || !strings.Contains(out.String(), "MACs checked") {
		t.Fatalf("log verify: %v\n%s%s", err, out.String(), errOut.String())
	}
	out.b.Reset()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	fctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- runLog(&LogOptions{IO: io, WorkDir: root, Getenv: getenv, follow: true, ctx: fctx}) }()
	waitFor(t, ctx, &out, "sess-two")
	add("sess-three", eventlog.TypeSessionInitialized)
	waitFor(t, ctx, &out, "sess-three")
	stop()
	if err := <-done; err != nil {
		t.Fatalf("log --follow: %v", err)
	}

	// A store that is not a postgres URL, or a config that is not JSON, is one
	// line naming the file.
	writeCfg(`{"store": 5}`)
	if err := runStatus(&StatusOptions{IO: io, WorkDir: root, Getenv: getenv}); err == nil || !strings.Contains(err.Error(), "config.json: store: expected a string") {
		t.Fatalf("bad store in the config: %v", err)
	}
}
