package fleet_test

import (
	"context"
	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/engine"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/fleet"
	"github.com/hook-loop/hook-loop/project/roster"
	"github.com/hook-loop/hook-loop/testkit/benchgen"
)

// A running fleet picks up a project registered meanwhile and lets go of one
// whose log is gone.
func TestRunFollowsTheRegistry(t *testing.T) {
	state := t.TempDir()
	f, err := fleet.Open(fleet.Options{StateDir: state, Getenv: func(string) string { return "" }, Rescan: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if n := len(f.Projects()); n != 0 {
		t.Fatalf("%d projects in an empty registry", n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	changed := make(chan struct{}, 100)
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx, func() { changed <- struct{}{} }) }()

	root, log := registered(t, state, 50, 2)
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for !ok() {
			select {
			case <-changed:
			case <-ctx.Done():
				t.Fatalf("never: %s", what)
			}
		}
	}
	waitFor("the new project", func() bool {
		ps := f.Projects()
		return len(ps) == 1 && ps[0].Name == root && len(ps[0].Watcher.Sessions()) == 2
	})
	if err := os.Remove(log); err != nil {
		t.Fatal(err)
	}
	waitFor("the project gone", func() bool { return len(f.Projects()) == 0 })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A store that does not answer is a warning; the machine's own projects are
// shown all the same.
func TestStoreDownStillShowsFiles(t *testing.T) {
	state := t.TempDir()
	registered(t, state, 10, 1)
	f, err := fleet.Open(fleet.Options{StateDir: state, StoreURL: "postgres://nobody@127.0.0.1:1/loops?connect_timeout=2", Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := f.Warnings()
	if len(f.Projects()) != 1 || len(w) != 1 || !strings.Contains(w[0], "list the store's projects") {
		t.Fatalf("projects %d, warnings %q", len(f.Projects()), w)
	}
}

// registered is a project with a generated log of events over sessions,
// registered in the state directory.
func registered(t testing.TB, state string, events, sessions int) (root, log string) {
	t.Helper()
	root = t.TempDir()
	log = filepath.Join(root, ".hook-loop", "events.jsonl")
	if err := os.MkdirAll(filepath.Dir(log), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := benchgen.Write(log, benchgen.Options{Events: events, Sessions: sessions}); err != nil {
		t.Fatal(err)
	}
	if err := roster.Register(state, roster.Entry{Root: root, Config: filepath.Join(root, "hook-loop.json"), Log: log}); err != nil {
		t.Fatal(err)
	}
	return root, log
}

// TestControlsUseTheGivenEngine: a project's controls act with the engine
// Options.Engine builds (the CLI's loads the person's lifecycle hooks), not a
// bare one that would skip them.
func TestControlsUseTheGivenEngine(t *testing.T) {
	state := t.TempDir()
	root, _ := registered(t, state, 10, 1)
	loopDoc := `{"loop": {"id": "x", "initial_state": "a", "states": ["a", "done"], "events": ["go"], "terminal_states": ["done"],
		"transitions": [{"from": "a", "event": "go", "to": "done"}]}}`
	if err := os.WriteFile(filepath.Join(root, "hook-loop.json"), []byte(loopDoc), 0o644); err != nil {
		t.Fatal(err)
	}
	var built *engine.Engine
	f, err := fleet.Open(fleet.Options{StateDir: state, Getenv: func(string) string { return "" },
		Engine: func(spec *dsl.Spec, root string) *engine.Engine {
			built = &engine.Engine{Spec: spec, Root: root}
			return built
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ps := f.Projects()
	if len(ps) != 1 || built == nil || ps[0].Controls.Engine != built {
		t.Fatalf("projects %d, the controls' engine is not the one Options.Engine built", len(ps))
	}
}
