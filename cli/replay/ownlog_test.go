package replay_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/cli/replay"
	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/gallery"
	"github.com/hook-loop/hook-loop/loop/dsl"
)

// TestReplayWritesOnlyItsOwnLog: a replay into a log that holds a harness's
// session (here, an earlier replay's) is refused naming the file, the log
// left as it was; a replay on its temporary log leaves neither the log nor
// its key behind.
func TestReplayWritesOnlyItsOwnLog(t *testing.T) {
	state, tmp := t.TempDir(), t.TempDir()
	t.Setenv(eventlog.StateDirEnv, state)
	t.Setenv("TMPDIR", tmp)
	data, err := gallery.Get("plan_execute")
	if err != nil {
		t.Fatal(err)
	}
	spec, _, err := dsl.Parse("gallery/plan_execute.json", data)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := replay.ReadTrace(filepath.Join(tracesDir(), "plan_execute", "claude-early-stop.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	o := replay.Options{Spec: spec, Adapters: galleryAdapters(), Harness: "claude", Root: t.TempDir(), Rebase: traceProject}
	if _, err := replay.Run(context.Background(), o, lines, nil); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{tmp, filepath.Join(state, "keys")} {
		if left, _ := os.ReadDir(d); len(left) > 0 {
			t.Errorf("%s keeps %s after the replay", d, left[0].Name())
		}
	}

	o.LogPath = filepath.Join(t.TempDir(), "events.jsonl")
	if _, err := replay.Run(context.Background(), o, lines, nil); err != nil {
		t.Fatalf("a new log: %v", err)
	}
	before, err := os.ReadFile(o.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	_, err = replay.Run(context.Background(), o, lines, nil)
	if err == nil || !strings.Contains(err.Error(), o.LogPath) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("replay into a log holding a harness's session: %v", err)
	}
	after, _ := os.ReadFile(o.LogPath)
	if !bytes.Equal(before, after) {
		t.Fatal("the log was written")
	}
}
