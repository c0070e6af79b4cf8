package replay_test

// Every gallery loop is proven on recorded real-harness sessions: the traces
// under gallery/traces/<loop>/<harness>-<kind>.jsonl were recorded by
// e2e/traces_test.go (the real Codex, Claude Code, opencode and pi against the
// repo's mock models, hooks installed with --record). Replaying them through the
// embedded loop must reach the loop's terminal success state (complete) or show
// the Stop gate refusing an early stop (early-stop). Editing a gallery loop so
// that it no longer advances on these real events fails this test.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/adapters/claude"
	"github.com/hook-loop/hook-loop/adapters/codex"
	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/adapters/opencode"
	"github.com/hook-loop/hook-loop/adapters/pi"
	"github.com/hook-loop/hook-loop/cli/replay"
	"github.com/hook-loop/hook-loop/gallery"
	"github.com/hook-loop/hook-loop/loop"
	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// traceProject is the placeholder the recorder writes for the scratch project.
const traceProject = replay.TraceProject

// <harness>-<kind>.jsonl; complete-subagent is a complete trace whose verdict
// came from a real evaluator subagent.
var traceName = regexp.MustCompile(`^(codex|claude|opencode|pi)-(complete|early-stop|complete-subagent)\.jsonl$`)

func tracesDir() string { return filepath.Join("..", "..", "gallery", "traces") }

func galleryAdapters() map[string]harness.Adapter {
	return map[string]harness.Adapter{"codex": codex.New(), "claude": claude.New(), "opencode": opencode.New(), "pi": pi.New()}
}

// traceFile is one recorded trace.
type traceFile struct{ loop, harness, kind, path string }

func listTraces(t *testing.T) []traceFile {
	t.Helper()
	loops, err := os.ReadDir(tracesDir())
	if err != nil {
		t.Fatalf("read %s: %v (the traces are recorded by e2e/traces_test.go)", tracesDir(), err)
	}
	var out []traceFile
	for _, l := range loops {
		if l.Name() == "README.md" {
			continue
		}
		if !l.IsDir() {
			t.Errorf("%s: unexpected file %s (want <loop>/<harness>-<kind>.jsonl)", tracesDir(), l.Name())
			continue
		}
		if !slices.Contains(gallery.Names(), l.Name()) {
			t.Errorf("%s/%s: no gallery loop of that name", tracesDir(), l.Name())
			continue
		}
		files, err := os.ReadDir(filepath.Join(tracesDir(), l.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			m := traceName.FindStringSubmatch(f.Name())
			if m == nil {
				t.Errorf("%s/%s/%s: want <codex|claude|opencode|pi>-<complete|early-stop>.jsonl", tracesDir(), l.Name(), f.Name())
				continue
			}
			out = append(out, traceFile{loop: l.Name(), harness: m[1], kind: m[2], path: filepath.Join(tracesDir(), l.Name(), f.Name())})
		}
	}
	return out
}

// replayTrace replays tf through its gallery loop, edited by edit when given.
func replayTrace(t *testing.T, tf traceFile, edit func([]byte) []byte) replay.Verdict {
	t.Helper()
	data, err := gallery.Get(tf.loop)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		data = edit(data)
	}
	spec, _, err := dsl.Parse("gallery/"+tf.loop+".json", data)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(tf.path)
	if err != nil {
		t.Fatal(err)
	}
	lines, err := replay.ReadTrace(tf.path)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range lines {
		if l.Harness != tf.harness {
			t.Fatalf("%s line %d: recorded by %q, but the file name says %s", tf.path, i+1, l.Harness, tf.harness)
		}
	}
	tr := gallery.Trace{Loop: tf.loop, Harness: tf.harness, Kind: tf.kind, Name: tf.path, Data: raw}
	v, err := replay.CheckTrace(context.Background(), spec, galleryAdapters(), tr, t.TempDir(), t.TempDir())
	if err != nil {
		t.Fatalf("replay %s: %v", tf.path, err)
	}
	return v
}

func TestGalleryTracesReplay(t *testing.T) {
	for _, tf := range listTraces(t) {
		t.Run(tf.loop+"/"+tf.harness+"-"+tf.kind, func(t *testing.T) {
			r := replayTrace(t, tf, nil)
			if len(r.Steps) == 0 {
				t.Fatalf("%s: empty trace", tf.path)
			}
			if !r.Completed() {
				t.Errorf("%s: no session reached %q with outcome completed; sessions %+v\n%s", tf.path, r.Success(), r.Sessions, r.Transcript())
			}
			// A person's NEEDS_WORK must send the loop to rework: opencode run
			// delivers a multi-word prompt wrapped in quotes, which the gallery's
			// anchored prompt rules must still match.
			for i, s := range r.Steps {
				if s.Event == loop.EventUserPromptSubmit && strings.Contains(s.Detail, "NEEDS_WORK") && s.State != "rework" {
					t.Errorf("%s: step %d, the person's NEEDS_WORK left the loop in %q, want rework\n%s", tf.path, i+1, s.State, r.Transcript())
				}
			}
			if tf.kind == "early-stop" && !r.EarlyStopRefused() {
				t.Errorf("%s: no Stop was refused before the loop became terminal\n%s", tf.path, r.Transcript())
			}
		})
	}
}

// TestGalleryReplayFailsForABrokenLoop: the replay test can fail. plan_execute
// without its rule for a passing verification no longer reaches done on the
// recorded Codex session.
func TestGalleryReplayFailsForABrokenLoop(t *testing.T) {
	tf := traceFile{loop: "plan_execute", harness: "codex", kind: "complete", path: filepath.Join(tracesDir(), "plan_execute", "codex-complete.jsonl")}
	if r := replayTrace(t, tf, nil); !r.Completed() {
		t.Fatalf("the unedited loop does not complete:\n%s", r.Transcript())
	}
	if r := replayTrace(t, tf, withoutStepDone); r.Completed() {
		t.Fatalf("plan_execute without its step_done rule still completes:\n%s", r.Transcript())
	}
}

// withoutStepDone removes plan_execute's rules that emit step_done.
func withoutStepDone(b []byte) []byte {
	n := len(gjson.GetBytes(b, "codex.event_map").Array())
	for i := n - 1; i >= 0; i-- {
		if gjson.GetBytes(b, fmt.Sprintf("codex.event_map.%d.emit", i)).String() == "step_done" {
			b, _ = sjson.DeleteBytes(b, fmt.Sprintf("codex.event_map.%d", i))
		}
	}
	return b
}

// TestEveryGalleryLoopHasTraces: each loop has at least one complete and one
// early-stop trace, and the Codex and Claude Code ones exist for every loop.
func TestEveryGalleryLoopHasTraces(t *testing.T) {
	have := map[string]map[string]bool{}
	for _, tf := range listTraces(t) {
		if have[tf.loop] == nil {
			have[tf.loop] = map[string]bool{}
		}
		have[tf.loop][tf.harness+"-"+tf.kind] = true
		have[tf.loop][tf.kind] = true
	}
	for _, name := range gallery.Names() {
		for _, want := range []string{"complete", "early-stop", "codex-complete", "codex-early-stop", "claude-complete", "claude-early-stop"} {
			if !have[name][want] {
				t.Errorf("gallery loop %s has no %s trace under %s (record it: HOOK_LOOP_RECORD_TRACES=1 go test ./e2e -run 'TestRecordTraces/%s/')",
					name, want, tracesDir(), name)
			}
		}
	}
}
