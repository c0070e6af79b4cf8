package engine_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/loop"
	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/loop/session"
	"github.com/hook-loop/hook-loop/sdk/hooks"
)

const planLoop = `{
  "loop": {
    "id": "plan_execute",
    "initial_state": "backlog",
    "states": ["backlog", "planning", "executing", "verifying", "done", "stopped"],
    "events": ["kickoff", "plan_ready", "step_done", "step_failed", "all_steps_pass"],
    "transitions": [
      {"from": "backlog", "event": "kickoff", "to": "planning"},
      {"from": "planning", "event": "plan_ready", "to": "executing"},
      {"from": "executing", "event": "step_done", "to": "verifying"},
      {"from": "verifying", "event": "step_failed", "to": "executing"},
      {"from": "verifying", "event": "all_steps_pass", "to": "done", "guards": ["evidence_bound_to_criteria"]}
    ],
    "instructions": {"planning": "Write PLAN.md with numbered steps."},
    "max_stop_blocks": 3,
    "policies": {"planning": {"deny_tools": ["Write", "Edit", "apply_patch"], "allow_path_match": "PLAN\\.md$"}}
  },
  "codex": {"event_map": [
    {"codex_event": "UserPromptSubmit", "emit": "kickoff"},
    {"codex_event": "PostToolUse", "when": {"path_match": "PLAN\\.md$"}, "emit": "plan_ready"},
    {"codex_event": "PostToolUse", "when": {"tool_name": "Bash", "command_match": "go test", "exit_code": 0},
     "record": {"event_type": "evidence_registered", "actor": "codex", "payload": {"kind": "verification"}, "include": ["command", "exit_code"]},
     "emit": "step_done"},
    {"codex_event": "Stop", "when": {"last_message_match": "(?i)all steps pass"}, "emit": "all_steps_pass"}
  ]}
}`

type fixture struct {
	t    *testing.T
	eng  *engine.Engine
	log  *session.Log
	root string
}

func newFixture(t *testing.T, text string) *fixture {
	t.Helper()
	root := t.TempDir()
	spec, _, err := dsl.Parse(filepath.Join(root, "hook-loop.json"), []byte(text))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	logPath := filepath.Join(root, ".hook-loop", "events.jsonl")
	return &fixture{t: t, root: root, log: session.Open(logPath),
		eng: &engine.Engine{Spec: spec, Root: root, ConfigPath: filepath.Join(root, "hook-loop.json"), LogPath: logPath,
			OwnedPaths: []string{".codex/hooks.json", ".harness/", filepath.Join(filepath.Dir(root), "owned.json")}}}
}

func (f *fixture) handle(ev loop.HookEvent) loop.Decision {
	f.t.Helper()
	if ev.SessionID == "" {
		ev.SessionID = "s1"
	}
	if ev.Cwd == "" {
		ev.Cwd = f.root
	}
	ev.Harness = "test"
	var d loop.Decision
	err := f.log.Update(func(tx session.Tx) error {
		var err error
		d, err = f.eng.Handle(context.Background(), tx, ev)
		return err
	})
	if err != nil {
		f.t.Fatalf("handle %s: %v", ev.Name, err)
	}
	return d
}

func (f *fixture) session(id string) session.View {
	var s session.View
	_ = f.log.View(func(tx session.Tx) error { s = tx.Session(id); return nil })
	return s
}

func (f *fixture) count(eventType string) int {
	n := 0
	_ = f.log.Scan(nil, func(_ int, e eventlog.Event) error {
		if e.EventType == eventType {
			n++
		}
		return nil
	})
	return n
}

func prompt(p string) loop.HookEvent {
	return loop.HookEvent{Name: loop.EventUserPromptSubmit, Prompt: p}
}
func bash(cmd string, exit *int) loop.HookEvent {
	in, _ := json.Marshal(map[string]string{"command": cmd})
	return loop.HookEvent{Name: loop.EventPostToolUse, ToolName: "Bash", Command: cmd, ToolInput: in,
		Result: &loop.ToolResult{Output: "ok", ExitCode: exit}}
}
func pre(tool, cmd string, paths ...string) loop.HookEvent {
	return loop.HookEvent{Name: loop.EventPreToolUse, ToolName: tool, Command: cmd, TargetPaths: paths}
}
func stop(msg string) loop.HookEvent {
	return loop.HookEvent{Name: loop.EventStop, LastAssistantMessage: msg}
}

func TestStopRefusedWithDSLDerivedReason(t *testing.T) {
	f := newFixture(t, planLoop)
	f.handle(prompt("build the feature"))
	d := f.handle(stop("I am done"))
	if d.Action != loop.Block {
		t.Fatalf("stop in planning: got %s, want block", d.Action)
	}
	for _, want := range []string{`"planning"`, "Write PLAN.md with numbered steps.", "plan_ready → executing", "PLAN\\.md$"} {
		if !strings.Contains(d.Reason, want) {
			t.Errorf("reason lacks %q:\n%s", want, d.Reason)
		}
	}
	if got := f.session("s1").StopBlocks; got != 1 {
		t.Errorf("stop blocks = %d, want 1", got)
	}
}

func TestExitCodeRulesNeedAKnownZero(t *testing.T) {
	f := newFixture(t, planLoop)
	f.handle(prompt("go"))
	f.handle(loop.HookEvent{Name: loop.EventPostToolUse, ToolName: "Write", TargetPaths: []string{filepath.Join(f.root, "PLAN.md")}})
	if s := f.session("s1").State; s != "executing" {
		t.Fatalf("state after PLAN.md = %s", s)
	}
	f.handle(bash("go test ./...", loop.IntPtr(3)))
	f.handle(bash("go test ./...", nil))
	if s := f.session("s1").State; s != "executing" {
		t.Fatalf("a failing or unknown exit code advanced the loop to %s", s)
	}
	f.handle(bash("go test ./...", loop.IntPtr(0)))
	if s := f.session("s1"); s.State != "verifying" || s.Evidence != 1 {
		t.Fatalf("after passing test: state %s evidence %d", s.State, s.Evidence)
	}
}

func TestRepeatedEventsDoNotStorm(t *testing.T) {
	f := newFixture(t, planLoop)
	for i := 0; i < 5; i++ {
		f.handle(prompt("again"))
	}
	if n := f.count(eventlog.TypeStateTransitioned); n != 1 {
		t.Fatalf("kickoff applied %d times, want 1", n)
	}
	if n := f.count(eventlog.TypeTransitionRejected); n != 0 {
		t.Fatalf("%d rejections recorded for events with no transition from the state", n)
	}
}

func TestGuardRejectionDoesNotStopTheLoop(t *testing.T) {
	// Reach verifying without evidence: a loop whose step_done records none.
	text := strings.Replace(planLoop, `"record": {"event_type": "evidence_registered", "actor": "codex", "payload": {"kind": "verification"}, "include": ["command", "exit_code"]},`, "", 1)
	f := newFixture(t, text)
	f.handle(prompt("go"))
	f.handle(loop.HookEvent{Name: loop.EventPostToolUse, ToolName: "Write", TargetPaths: []string{"PLAN.md"}})
	f.handle(bash("go test", loop.IntPtr(0)))
	d := f.handle(stop("All steps pass"))
	if d.Action != loop.Block {
		t.Fatalf("stop without evidence: %s", d.Action)
	}
	if s := f.session("s1").State; s != "verifying" {
		t.Fatalf("rejected transition moved the loop to %s", s)
	}
	if f.count(eventlog.TypeTransitionRejected) != 1 {
		t.Fatal("transition_rejected not recorded")
	}
	if !strings.Contains(d.Reason, "evidence_bound_to_criteria") {
		t.Errorf("reason does not name the missing guard:\n%s", d.Reason)
	}
}

func TestFullRunCompletesAndAllowsStop(t *testing.T) {
	f := newFixture(t, planLoop)
	f.handle(prompt("go"))
	f.handle(loop.HookEvent{Name: loop.EventPostToolUse, ToolName: "apply_patch", TargetPaths: []string{filepath.Join(f.root, "PLAN.md")}})
	f.handle(bash("go test ./...", loop.IntPtr(0)))
	d := f.handle(stop("All steps pass."))
	if d.Action == loop.Block || d.State != "done" || d.Outcome != "completed" {
		t.Fatalf("final stop: %s in %s (%s)", d.Action, d.State, d.Reason)
	}
	if s := f.session("s1"); s.Outcome != "completed" {
		t.Fatalf("outcome %q", s.Outcome)
	}
	if d := f.handle(stop("bye")); d.Action == loop.Block {
		t.Fatal("stop after done refused")
	}
	if f.count(eventlog.TypeLoopOutcome) != 1 {
		t.Fatal("outcome recorded more than once")
	}
}

func TestStopCapRecordsCapped(t *testing.T) {
	f := newFixture(t, planLoop)
	f.handle(prompt("go"))
	for i := 1; i <= 3; i++ {
		d := f.handle(loop.HookEvent{Name: loop.EventStop, StopHookActive: i > 1})
		if d.Action != loop.Block || d.StopBlocks != i {
			t.Fatalf("stop %d: %s blocks=%d", i, d.Action, d.StopBlocks)
		}
		// Tool use between refusals does not reset the count: only progress does.
		f.handle(bash("ls", loop.IntPtr(0)))
	}
	d := f.handle(loop.HookEvent{Name: loop.EventStop, StopHookActive: true})
	if d.Action == loop.Block || d.Outcome != "capped" || d.SystemMessage == "" {
		t.Fatalf("4th stop: %+v", d)
	}
	if s := f.session("s1"); s.Outcome != "capped" || s.State != "planning" {
		t.Fatalf("summary after cap: %+v", s)
	}
}

// max_stop_blocks: 0 means never capped: every stop is refused until the loop
// is terminal, however many came before; the decision carries no cap, and a
// harness that overrides the refusals (Claude Code after 8 without tool use)
// is recorded as a forced outcome, as with any cap.
func TestStopNeverCappedWithZero(t *testing.T) {
	f := newFixture(t, strings.Replace(planLoop, `"max_stop_blocks": 3,`, `"max_stop_blocks": 0,`, 1))
	f.handle(prompt("go"))
	for i := 1; i <= 3*dsl.DefaultMaxStopBlocks; i++ {
		d := f.handle(loop.HookEvent{Name: loop.EventStop, StopHookActive: i > 1})
		if d.Action != loop.Block || d.StopBlocks != i || d.Outcome != "" {
			t.Fatalf("stop %d: %+v", i, d)
		}
		if d.MaxStopBlocks != 0 {
			t.Fatalf("stop %d: decision cap %d, want 0 (never)", i, d.MaxStopBlocks)
		}
	}
	if f.count(eventlog.TypeLoopOutcome) != 0 {
		t.Fatal("an outcome was recorded for a loop that is never capped")
	}
	f.handle(loop.HookEvent{Name: loop.EventSessionEnd, Source: "other"})
	if s := f.session("s1"); s.Outcome != "forced" {
		t.Fatalf("the harness ending the session: outcome %q, want forced", s.Outcome)
	}
}

func TestTransitionResetsStopCount(t *testing.T) {
	f := newFixture(t, planLoop)
	f.handle(prompt("go"))
	f.handle(stop(""))
	f.handle(stop(""))
	f.handle(loop.HookEvent{Name: loop.EventPostToolUse, ToolName: "Write", TargetPaths: []string{"PLAN.md"}})
	if n := f.session("s1").StopBlocks; n != 0 {
		t.Fatalf("stop blocks after a transition = %d", n)
	}
}

func TestForcedStopIsToldApart(t *testing.T) {
	f := newFixture(t, planLoop)
	f.handle(prompt("go"))
	f.handle(stop(""))
	f.handle(loop.HookEvent{Name: loop.EventSessionEnd})
	s := f.session("s1")
	if s.Outcome != "forced" || !s.OutcomeForced {
		t.Fatalf("summary: %+v", s)
	}
}

func TestRiskyCommands(t *testing.T) {
	f := newFixture(t, planLoop)
	f.handle(prompt("go"))
	f.handle(loop.HookEvent{Name: loop.EventPostToolUse, ToolName: "Write", TargetPaths: []string{"PLAN.md"}})
	risky := []string{
		"rm -rf build", "cd sub && rm -rf ../x", "sudo apt-get install x", "FOO=1 rm -r dir",
		"env A=b rm -fr d", "git push --force origin main", "git push origin +main", "git reset --hard HEAD~1",
		"bash -c 'rm -rf /'", "rm ~/.bashrc", "ls; rm -R x", `psql -c "DROP TABLE users"`, "git clean -fdx",
		"rm /etc/passwd", "rm .git/config",
	}
	for _, c := range risky {
		if d := f.handle(pre("Bash", c)); d.Action != loop.Block {
			t.Errorf("%q allowed", c)
		}
	}
	safe := []string{"rm /tmp/x.txt", "git commit -m 'rm -rf'", `echo "see .git/config"`, "go test ./...",
		"git push origin main", "rm build.log", "git status"}
	for _, c := range safe {
		if d := f.handle(pre("Bash", c)); d.Action == loop.Block {
			t.Errorf("%q blocked: %s", c, d.Reason)
		}
	}
}

func TestProtectedPathsFromRealTargets(t *testing.T) {
	f := newFixture(t, planLoop)
	f.handle(prompt("go"))
	f.handle(loop.HookEvent{Name: loop.EventPostToolUse, ToolName: "Write", TargetPaths: []string{"PLAN.md"}})
	cases := []struct {
		ev    loop.HookEvent
		block bool
	}{
		{pre("apply_patch", "", filepath.Join(f.root, ".git", "config")), true},
		{pre("apply_patch", "", filepath.Join(f.root, "docs", "git.md")), false},
		{pre("Write", "", filepath.Join(f.root, "hook-loop.json")), true},
		{pre("Edit", "", filepath.Join(f.root, ".hook-loop", "events.jsonl")), true},
		{pre("Write", "", filepath.Join(f.root, ".codex", "hooks.json")), true},
		{pre("Write", "", filepath.Join(f.root, ".codex", "notes.md")), false},
		{pre("Write", "", filepath.Join(f.root, ".harness", "hooks", "x.json")), true},
		{pre("Bash", "rm .harness/x.json"), true},
		{pre("Write", "", filepath.Join(f.root, ".harnessy", "x.json")), false},
		{pre("Write", "", filepath.Join(filepath.Dir(f.root), "owned.json")), true},
		{pre("Bash", "echo '{}' > hook-loop.json"), true},
		{pre("Bash", "sed -i s/a/b/ .hook-loop/events.jsonl"), true},
		{pre("Bash", "cat hook-loop.json"), false},
		{pre("Bash", "echo .git >> notes.txt"), false},
		{pre("Write", "", filepath.Join(f.root, "src", "main.go")), false},
	}
	for i, c := range cases {
		d := f.handle(c.ev)
		if (d.Action == loop.Block) != c.block {
			t.Errorf("case %d (%s %q %v): block=%v want %v (%s)", i, c.ev.ToolName, c.ev.Command, c.ev.TargetPaths, d.Action == loop.Block, c.block, d.Reason)
		}
	}
}

func TestStatePolicy(t *testing.T) {
	f := newFixture(t, planLoop)
	f.handle(prompt("go"))
	if d := f.handle(pre("Write", "", filepath.Join(f.root, "main.go"))); d.Action != loop.Block || !strings.Contains(d.Reason, "planning") {
		t.Fatalf("write of main.go while planning: %+v", d)
	}
	if d := f.handle(pre("apply_patch", "", filepath.Join(f.root, "PLAN.md"))); d.Action == loop.Block {
		t.Fatalf("PLAN.md refused while planning: %s", d.Reason)
	}
	f.handle(loop.HookEvent{Name: loop.EventPostToolUse, ToolName: "Write", TargetPaths: []string{"PLAN.md"}})
	if d := f.handle(pre("Write", "", filepath.Join(f.root, "main.go"))); d.Action == loop.Block {
		t.Fatalf("write refused while executing: %s", d.Reason)
	}
}

func TestSessionStartContract(t *testing.T) {
	f := newFixture(t, planLoop)
	d := f.handle(loop.HookEvent{Name: loop.EventSessionStart, Source: "startup"})
	if d.Action != loop.Steer || !strings.Contains(d.Context, `"plan_execute"`) || !strings.Contains(d.Context, `"backlog"`) {
		t.Fatalf("contract: %+v", d)
	}
}

func TestProjectScopeSharesState(t *testing.T) {
	f := newFixture(t, strings.Replace(planLoop, `"max_stop_blocks": 3,`, `"max_stop_blocks": 3, "scope": "project",`, 1))
	f.handle(loop.HookEvent{Name: loop.EventUserPromptSubmit, SessionID: "a", Prompt: "go"})
	d := f.handle(loop.HookEvent{Name: loop.EventStop, SessionID: "b"})
	if d.State != "planning" {
		t.Fatalf("session b sees state %s, want the shared planning", d.State)
	}
}

// recorder is an in-process lifecycle runner: it applies fixed decisions.
type recorder struct {
	fired []string
	apply func(point string, c any)
}

func (r *recorder) Fire(_ context.Context, point string, c any) []engine.LifecycleRecord {
	r.fired = append(r.fired, point)
	if r.apply != nil {
		r.apply(point, c)
	}
	return []engine.LifecycleRecord{{Type: "hooks.seen", Payload: map[string]any{"point": point}}}
}

func TestLifecycleLoopStartRefusalHolds(t *testing.T) {
	f := newFixture(t, planLoop)
	rec := &recorder{apply: func(p string, c any) {
		if ls, ok := c.(*hooks.LoopStartContext); ok {
			ls.Proceed, ls.Reason = false, "not on the roster"
		}
	}}
	f.eng.Lifecycle = rec
	f.handle(prompt("go"))
	if d := f.handle(stop("")); d.Action != loop.Block || !strings.Contains(d.Reason, "not on the roster") {
		t.Fatalf("a held session's stop: %+v", d)
	}
	if d := f.handle(loop.HookEvent{Name: loop.EventPreToolUse, SessionID: "s1", ToolName: "Bash", Command: "ls"}); d.Action != loop.Block || !strings.Contains(d.Reason, "not on the roster") {
		t.Fatalf("a held session's tool call: %+v", d)
	}
	if s := f.session("s1"); s.Disarmed != "" || !strings.Contains(s.Held, "not on the roster") {
		t.Fatalf("disarmed = %q, held = %q", s.Disarmed, s.Held)
	}
	if len(rec.fired) == 0 || rec.fired[0] != "loop_start" {
		t.Fatalf("points fired: %v", rec.fired)
	}
}

func TestLifecycleSessionStartRefusalEndsTheSession(t *testing.T) {
	f := newFixture(t, planLoop)
	f.eng.Lifecycle = &recorder{apply: func(p string, c any) {
		if x, ok := c.(*hooks.SessionStartContext); ok {
			x.Proceed, x.Reason = false, "not today"
		}
	}}
	d := f.handle(loop.HookEvent{Name: loop.EventSessionStart, Source: "startup"})
	if d.Action != loop.Block || !d.EndSession || d.Reason != "not today" {
		t.Fatalf("session_start refusal: %+v, want a block that ends the session", d)
	}
	// A harness that went on anyway gets every prompt and tool call refused,
	// and its stop let through (a refused stop would keep the agent working).
	if d := f.handle(prompt("go")); d.Action != loop.Block || !d.EndSession || d.Reason != "not today" {
		t.Fatalf("prompt after a refused session: %+v", d)
	}
	if d := f.handle(pre("Bash", "ls")); d.Action != loop.Block || !d.EndSession {
		t.Fatalf("tool call after a refused session: %+v", d)
	}
	if d := f.handle(stop("")); d.Action == loop.Block {
		t.Fatalf("stop after a refused session was refused: %+v", d)
	}
	if d := f.handle(loop.HookEvent{Name: loop.EventSessionStart, Source: "resume"}); d.Action != loop.Block || !d.EndSession {
		t.Fatalf("resuming a refused session: %+v", d)
	}
	if s := f.session("s1"); !s.SessionRefused || s.Disarmed != "not today" {
		t.Fatalf("session = %+v", s)
	}
}

func TestLifecycleDecisionsTakeEffect(t *testing.T) {
	f := newFixture(t, planLoop)
	rec := &recorder{apply: func(p string, c any) {
		switch x := c.(type) {
		case *hooks.SessionStartContext:
			x.Context = "house rules first"
		case *hooks.ToolRequestedContext:
			if x.Command == "make deploy" {
				x.Proceed, x.Reason = false, "deploys need a person"
			}
		case *hooks.PhaseChangedContext:
			x.Notify = false
		}
	}}
	f.eng.Lifecycle = rec
	if d := f.handle(loop.HookEvent{Name: loop.EventSessionStart}); d.Context != "house rules first" {
		t.Fatalf("session_start context: %q", d.Context)
	}
	if d := f.handle(prompt("go")); d.SystemMessage != "" {
		t.Fatalf("phase change announced despite notify=false: %q", d.SystemMessage)
	}
	if d := f.handle(pre("Bash", "make deploy")); d.Action != loop.Block || d.Reason != "deploys need a person" {
		t.Fatalf("tool_requested refusal: %+v", d)
	}
	want := []string{"loop_start", "session_spawned", "session_start", "input_received", "phase_changed", "tool_requested"}
	if strings.Join(rec.fired, ",") != strings.Join(want, ",") {
		t.Fatalf("fired %v, want %v", rec.fired, want)
	}
	if f.count("hooks.seen") != len(want) {
		t.Fatalf("runner records not logged")
	}
}

// session_spawned fires once, right after the session's first event is
// recorded, and what it announces reaches the agent with that event's answer.
func TestSessionSpawnedAnnouncesToTheAgent(t *testing.T) {
	f := newFixture(t, planLoop)
	var spawned []*hooks.SessionSpawnedContext
	f.eng.Lifecycle = &recorder{apply: func(p string, c any) {
		if x, ok := c.(*hooks.SessionSpawnedContext); ok {
			spawned = append(spawned, x)
			x.Announce = "this session is watched by ACME"
		}
	}}
	d := f.handle(prompt("go"))
	if d.Action != loop.Steer || !strings.Contains(d.Context, "this session is watched by ACME") {
		t.Fatalf("first event's answer: %+v, want the announcement for the agent", d)
	}
	if d := f.handle(prompt("again")); strings.Contains(d.Context, "ACME") {
		t.Fatalf("announced again at the second event: %+v", d)
	}
	if len(spawned) != 1 {
		t.Fatalf("session_spawned fired %d times, want once", len(spawned))
	}
	c := spawned[0]
	if c.Event != loop.EventUserPromptSubmit || c.SessionID != "s1" || c.HarnessSessionID != "s1" || c.Actor != "agent" || c.State == "" {
		t.Errorf("context = %+v", c)
	}
	if f.count("loop_started") != 1 {
		t.Errorf("loop_started records = %d", f.count("loop_started"))
	}
}

func TestStopMessageMergesRulesThatDifferOnlyInTool(t *testing.T) {
	f := newFixture(t, strings.Replace(planLoop,
		`{"codex_event": "PostToolUse", "when": {"path_match": "PLAN\\.md$"}, "emit": "plan_ready"},`,
		`{"codex_event": "PostToolUse", "when": {"tool_name": "apply_patch", "path_match": "PLAN\\.md$"}, "emit": "plan_ready"},
		 {"codex_event": "PostToolUse", "when": {"tool_name": "Write", "path_match": "PLAN\\.md$"}, "emit": "plan_ready"},
		 {"codex_event": "PostToolUse", "when": {"tool_name": "Edit", "path_match": "PLAN\\.md$"}, "emit": "plan_ready"},`, 1))
	f.handle(prompt("go"))
	d := f.handle(stop(""))
	want := "plan_ready → executing: happens on an apply_patch, Write or Edit call that writes a file matching `PLAN\\.md$`"
	if !strings.Contains(d.Reason, want) {
		t.Fatalf("reason:\n%s\nwant it to contain:\n%s", d.Reason, want)
	}
}

func TestNewTurnAfterRefusalsIsAForcedStop(t *testing.T) {
	f := newFixture(t, planLoop)
	f.handle(prompt("go"))
	f.handle(stop(""))
	f.handle(stop(""))
	f.handle(prompt("continue please"))
	s := f.session("s1")
	if s.Outcome != "forced" || s.StopBlocks != 0 {
		t.Fatalf("after a new turn: %+v", s)
	}
	// The loop can still complete later, and then says so.
	f.handle(loop.HookEvent{Name: loop.EventPostToolUse, ToolName: "Write", TargetPaths: []string{"PLAN.md"}})
	f.handle(bash("go test ./...", loop.IntPtr(0)))
	f.handle(stop("ALL STEPS PASS"))
	if s := f.session("s1"); s.Outcome != "completed" || s.OutcomeForced {
		t.Fatalf("after completing: %+v", s)
	}
}

// Copilot CLI and Qwen Code hand a refused stop's reason to the model as the
// next prompt, and Qwen sends an empty prompt event with tool results: neither
// is a new turn, so the refusals keep counting toward max_stop_blocks (before,
// each one ended the loop as forced and reset the count: the cap never came).
func TestRefusalCarriedAsAPromptIsNoNewTurn(t *testing.T) {
	f := newFixture(t, planLoop)
	f.handle(prompt("go"))
	d := f.handle(stop(""))
	if d.Action != loop.Block {
		t.Fatalf("first stop: %+v", d)
	}
	f.handle(prompt("\n" + d.Reason + "\n"))
	f.handle(prompt(""))
	s := f.session("s1")
	if s.Outcome != "" || s.StopBlocks != 1 {
		t.Fatalf("after the refusal came back as a prompt: %+v", s)
	}
	f.handle(stop(""))
	if s := f.session("s1"); s.StopBlocks != 2 {
		t.Fatalf("the second refusal did not count: %+v", s)
	}
	// A prompt of the person's own is still a new turn.
	f.handle(prompt("something else"))
	if s := f.session("s1"); s.Outcome != "forced" || s.StopBlocks != 0 {
		t.Fatalf("after a new turn: %+v", s)
	}
}

// A refused stop that the harness hands back as the next prompt (Copilot CLI,
// Qwen Code) is hook-loop's own text, not the person's: input_received hooks
// are not asked about it and prompt rules do not match it, as with Gemini
// CLI's marked continuation.
func TestRefusalCarriedAsAPromptFiresNoPromptHooks(t *testing.T) {
	f := newFixture(t, planLoop)
	r := &recorder{}
	f.eng.Lifecycle = r
	f.handle(prompt("go"))
	d := f.handle(stop(""))
	if d.Action != loop.Block {
		t.Fatalf("stop: %+v", d)
	}
	r.fired = nil
	if got := f.handle(prompt(d.Reason)); got.Action != loop.Allow {
		t.Errorf("the echoed refusal: %+v, want allow", got)
	}
	if slices.Contains(r.fired, hooks.PointInputReceived) {
		t.Errorf("input_received fired for hook-loop's own refusal: %q", r.fired)
	}
	r.fired = nil
	f.handle(prompt("something else"))
	if !slices.Contains(r.fired, hooks.PointInputReceived) {
		t.Errorf("input_received not fired for the person's prompt: %q", r.fired)
	}
}

func TestSessionEndReasonIsRecorded(t *testing.T) {
	f := newFixture(t, planLoop)
	f.handle(prompt("go"))
	f.handle(stop(""))
	f.handle(loop.HookEvent{Name: loop.EventSessionEnd, Source: "prompt_input_exit"})
	found := false
	_ = f.log.Scan(nil, func(_ int, e eventlog.Event) error {
		if e.EventType == eventlog.TypeLoopOutcome && e.Payload["end_reason"] == "prompt_input_exit" && e.Payload["ended_by"] == "session_end" {
			found = true
		}
		return nil
	})
	if !found {
		t.Fatal("forced outcome lacks the end reason")
	}
}

// A shell write counts as writing its target for path_match, whichever harness
// sent the command: the engine derives shell targets itself, adapters need not.
func TestPathMatchSeesShellWrites(t *testing.T) {
	f := newFixture(t, planLoop)
	f.handle(prompt("go"))
	ev := bash("cat > PLAN.md <<'EOF'\n1. write the code\nEOF", loop.IntPtr(0))
	f.handle(ev)
	if s := f.session("s1").State; s != "executing" {
		t.Fatalf("a heredoc write of PLAN.md left the loop in %s", s)
	}
}

// TestShellWriteTargets: the paths a Bash call writes, as tool_requested and
// path_match see them, come from the parsed command for every harness.
func TestShellWriteTargets(t *testing.T) {
	f := newFixture(t, planLoop)
	var got [][]string
	f.eng.Lifecycle = &recorder{apply: func(p string, c any) {
		if x, ok := c.(*hooks.ToolRequestedContext); ok {
			got = append(got, x.Paths)
		}
	}}
	f.handle(prompt("go"))
	f.handle(loop.HookEvent{Name: loop.EventPostToolUse, ToolName: "Write", TargetPaths: []string{filepath.Join(f.root, "PLAN.md")}})
	cases := []struct {
		cmd  string
		want []string
	}{
		{"echo a > one.txt && cat x >> /tmp/two.txt 2>/dev/null", []string{filepath.Join(f.root, "one.txt"), "/tmp/two.txt"}},
		{"echo hi > 'with space.txt'", []string{filepath.Join(f.root, "with space.txt")}},
		// The source of a copy is read, not written.
		{"cp a.txt b.txt", []string{filepath.Join(f.root, "b.txt")}},
		{"ls 2>&1 | grep x", nil},
		{"if [ ; then", nil},
	}
	for _, c := range cases {
		got = nil
		f.handle(pre("Bash", c.cmd))
		if len(got) != 1 || strings.Join(got[0], "|") != strings.Join(c.want, "|") {
			t.Errorf("%q: paths %q, want %q", c.cmd, got, c.want)
		}
	}
}

// TestEvidenceActorIsTheHarness: a rule's record written for Codex ("actor":
// "codex") is logged with the harness the event came from, so evidence under
// Claude Code (or here, the fixture's harness "test") is not Codex's.
func TestEvidenceActorIsTheHarness(t *testing.T) {
	f := newFixture(t, planLoop)
	f.handle(prompt("go"))
	f.handle(loop.HookEvent{Name: loop.EventPostToolUse, ToolName: "Write", TargetPaths: []string{"PLAN.md"}})
	f.handle(bash("go test ./...", loop.IntPtr(0)))
	var actors []string
	_ = f.log.Scan(nil, func(_ int, e eventlog.Event) error {
		if e.EventType == eventlog.TypeEvidenceRegistered {
			actors = append(actors, e.Actor)
		}
		return nil
	})
	if len(actors) != 1 || actors[0] != "test" {
		t.Errorf("evidence actors %v, want [test] (the event's harness)", actors)
	}
}
