//go:build unix

package lifecycle_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/adapters/codex"
	"github.com/hook-loop/hook-loop/gallery"
	"github.com/hook-loop/hook-loop/hook"
	"github.com/hook-loop/hook-loop/lifecycle"
	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/loop/session"
	"github.com/hook-loop/hook-loop/operator"
)

// seedHook is written as the lifecycle design's own example hooks are: one
// method per point, reading the context's fields as attributes. A field the
// context lacks raises AttributeError, which is the hook's failure.
const seedHook = `import json, os
from hook_loop_hooks import LifecycleHooks, serve_stdio

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seen.jsonl")
COMMON = ["loop_id", "session_id", "harness", "cwd", "state", "actor"]


def note(point, ctx, names):
    with open(OUT, "a") as f:
        f.write(json.dumps({"point": point, "fields": {n: getattr(ctx, n) for n in COMMON + names}}) + "\n")


class Seed(LifecycleHooks):
    def work_item_start(self, ctx):          # the design's name of loop_start
        note("loop_start", ctx, ["command", "proceed", "reason"])

    def session_start(self, ctx):
        note("session_start", ctx, ["source", "model", "respawn", "context", "proceed", "reason"])

    def session_spawned(self, ctx):
        note("session_spawned", ctx, ["harness_session_id", "event", "source", "model", "respawn", "announce"])

    def input_received(self, ctx):
        note("input_received", ctx, ["kind", "source", "command", "event", "endpoint", "prompt", "context", "proceed", "reason"])

    def tool_requested(self, ctx):
        note("tool_requested", ctx, ["tool_name", "tool_input", "command", "paths", "proceed", "reason"])

    def phase_changed(self, ctx):
        note("phase_changed", ctx, ["from_", "to", "event", "from_phase", "to_phase", "outcome", "terminal", "notify", "message"])

    def waiting_for_input(self, ctx):
        note("waiting_for_input", ctx, ["kind", "node", "question", "summary"])

    def work_item_complete(self, ctx):       # the design's name of loop_complete
        note("loop_complete", ctx, ["final_state", "outcome", "source", "announce"])


if __name__ == "__main__":
    serve_stdio(Seed())
`

// Every point's context carries the design's fields, as a hook written for the
// design reads them: hook events and a person's controls, through one session
// of the gallery's approval loop.
func TestSeedStyleHookReadsEveryField(t *testing.T) {
	needPython(t)
	dir := pyDir(t)
	if err := os.WriteFile(filepath.Join(dir, "seed.py"), []byte(seedHook), 0o644); err != nil {
		t.Fatal(err)
	}
	r := pyRunner(t, dir, lifecycle.Entry{Name: "seed", Path: filepath.Join(dir, "seed.py"), Required: true})
	root := t.TempDir()
	src, err := gallery.Get("approval_gate")
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(root, "hook-loop.json")
	os.WriteFile(cfg, src, 0o644)
	lc := func(string) (engine.Lifecycle, *engine.LifecycleRecord) { return r, nil }
	send := func(event, fields string) {
		t.Helper()
		cwd, _ := json.Marshal(root)
		in := `{"session_id":"s1","turn_id":"t1","transcript_path":null,"cwd":` + string(cwd) + `,"hook_event_name":"` + event + `","model":"gpt-test","permission_mode":"default"` + fields + `}`
		out := hook.New(hook.Deps{Lifecycle: lc}).Run(context.Background(), hook.Request{
			Adapter: codex.New(), Flags: hook.Flags{ConfigPath: cfg, Event: event}, Stdin: strings.NewReader(in), Cwd: root,
		})
		if out.Exit != 0 {
			t.Fatalf("%s: exit %d %s %s", event, out.Exit, out.Stdout, out.Stderr)
		}
	}
	send("SessionStart", `,"source":"startup"`)
	send("UserPromptSubmit", `,"prompt":"draft a proposal"`)
	send("PreToolUse", `,"tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"c1"`)
	send("Stop", `,"stop_hook_active":false,"last_assistant_message":"The draft is ready. APPROVAL REQUESTED"`)

	spec, _, err := dsl.Load(cfg)
	if err != nil {
		t.Fatal(err)
	}
	log := session.Open(filepath.Join(root, ".hook-loop", "events.jsonl"))
	ctl := operator.Controls{Log: operator.FileLog(log), Engine: &engine.Engine{Spec: spec, Root: root, Lifecycle: r}}
	for _, req := range []operator.Request{
		{Action: operator.Approve, Session: "s1", Reason: "ship it", Source: "cli"},
		{Action: operator.Advance, Session: "s1", Event: "finalize", Source: "cli"},
	} {
		if _, err := ctl.Apply(context.Background(), req); err != nil {
			t.Fatalf("%s: %v", req.Action, err)
		}
	}

	for _, l := range readLog(t, filepath.Join(root, ".hook-loop", "events.jsonl")) {
		if l.EventType == "hooks.failed" || l.EventType == "lifecycle_held" {
			t.Errorf("the seed hook failed: %s %v", l.EventType, l.Payload)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "seen.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string][]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var rec struct {
			Point  string
			Fields map[string]any
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		seen[rec.Point] = append(seen[rec.Point], rec.Fields)
	}
	has := func(point string, want map[string]any) {
		t.Helper()
		for _, f := range seen[point] {
			ok := true
			for k, v := range want {
				if fmt.Sprint(f[k]) != fmt.Sprint(v) {
					ok = false
				}
			}
			if ok {
				return
			}
		}
		t.Errorf("%s: no context with %v among %v", point, want, seen[point])
	}
	has("loop_start", map[string]any{"command": "SessionStart", "actor": "agent", "harness": "codex", "loop_id": "approval_gate"})
	has("session_spawned", map[string]any{"event": "SessionStart", "harness_session_id": "s1", "model": "gpt-test", "source": "startup"})
	has("session_start", map[string]any{"source": "startup", "model": "gpt-test", "respawn": false})
	has("input_received", map[string]any{"kind": "prompt", "source": "harness", "endpoint": "s1", "prompt": "draft a proposal", "actor": "agent"})
	has("input_received", map[string]any{"kind": "command", "source": "person", "command": "approve", "prompt": "ship it", "actor": "person", "endpoint": ""})
	has("tool_requested", map[string]any{"tool_name": "Bash", "command": "ls"})
	has("phase_changed", map[string]any{"from_phase": "drafting", "to_phase": "pending_approval", "actor": "agent", "terminal": false})
	has("phase_changed", map[string]any{"from_": "pending_approval", "to": "approved", "outcome": "approval_granted", "actor": "person"})
	has("phase_changed", map[string]any{"to": "done", "terminal": true, "actor": "person"})
	has("waiting_for_input", map[string]any{"kind": "gate", "node": "pending_approval"})
	has("loop_complete", map[string]any{"final_state": "done", "outcome": "completed", "source": "person", "actor": "person"})
}
