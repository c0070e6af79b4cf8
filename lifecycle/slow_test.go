package lifecycle_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/adapters/codex"
	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/hook"
	"github.com/hook-loop/hook-loop/lifecycle"
	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/loop/session"
	"github.com/hook-loop/hook-loop/sdk/hooks"
)

const preToolPayload = `{"session_id":"%s","turn_id":"t1","transcript_path":"/tmp/rollout.jsonl","cwd":"%s","hook_event_name":"PreToolUse","model":"mock-model","permission_mode":"bypassPermissions","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"call-1"}`

// slowEvaluator answers tool_requested for session "slow" only when the test
// releases it, and at once for every other session.
type slowEvaluator struct {
	entered  chan struct{}
	release  chan struct{}
	returned atomic.Bool
	slowRuns atomic.Int32
	fastRuns atomic.Int32
}

func (s *slowEvaluator) ToolRequested(ctx context.Context, c *hooks.ToolRequestedContext) error {
	if c.SessionID != "slow" {
		s.fastRuns.Add(1)
		return nil
	}
	if s.slowRuns.Add(1) == 1 {
		close(s.entered)
	}
	defer s.returned.Store(true)
	select {
	case <-s.release:
		c.Proceed, c.Reason = false, "the evaluator's verdict: no"
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// A lifecycle executor runs outside the event log's lock: while session
// "slow"'s executor is still blocked — longer than the budget executors had
// under the lock — session "fast" of the same project gets its answer, and
// the slow executor's decision is applied once when it comes.
func TestSlowExecutorDoesNotHoldOtherSessions(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "hook-loop.json"), []byte(gatedLoop), 0o644)
	ev := &slowEvaluator{entered: make(chan struct{}), release: make(chan struct{})}
	r, err := lifecycle.NewRunner(lifecycle.Entry{Name: "evaluator", Handler: ev, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	run := func(sid string) harness.Output {
		return hook.New(hook.Deps{Lifecycle: func(string) (engine.Lifecycle, *engine.LifecycleRecord) { return r, nil }}).
			Run(context.Background(), hook.Request{
				Adapter: codex.New(),
				Flags:   hook.Flags{ConfigPath: filepath.Join(root, "hook-loop.json"), Event: "PreToolUse"},
				Stdin:   strings.NewReader(fmt.Sprintf(preToolPayload, sid, root)),
				Cwd:     root,
			})
	}
	slowDone := make(chan harness.Output, 1)
	go func() { slowDone <- run("slow") }()
	receive(t, ev.entered, "the slow executor was never called")

	fast := run("fast")
	if ev.returned.Load() {
		t.Fatal("session fast was answered only after the slow executor had returned: it waited for the log's lock")
	}
	if fast.Exit != 0 || strings.Contains(string(fast.Stdout), "block") || len(fast.Stderr) > 0 {
		t.Errorf("session fast: exit %d stdout %s stderr %s", fast.Exit, fast.Stdout, fast.Stderr)
	}
	if ev.fastRuns.Load() == 0 {
		t.Error("session fast's tool_requested never ran")
	}

	// Longer than LockedLifecycleBudget, the cap executors had under the lock.
	time.Sleep(hook.LockedLifecycleBudget + time.Second)
	close(ev.release)
	slow := receive(t, slowDone, "session slow never answered")
	if !strings.Contains(string(slow.Stdout), "the evaluator's verdict: no") {
		t.Errorf("session slow: the executor's refusal was not applied: exit %d stdout %s stderr %s", slow.Exit, slow.Stdout, slow.Stderr)
	}
	if n := ev.slowRuns.Load(); n != 1 {
		t.Errorf("the slow executor ran %d times, want 1", n)
	}
	var decided, refused int
	for _, l := range readLog(t, filepath.Join(root, ".hook-loop", "events.jsonl")) {
		if l.SessionID != "slow" {
			continue
		}
		switch l.EventType {
		case "hooks.decided":
			decided++
		case "hooks.refused":
			refused++
		}
	}
	if decided != 1 || refused != 1 {
		t.Errorf("session slow's log has %d hooks.decided and %d hooks.refused, want one each", decided, refused)
	}
}

// stopCompleter blocks loop_complete until the test releases it.
type stopCompleter struct{ entered, release chan struct{} }

func (s *stopCompleter) LoopComplete(ctx context.Context, c *hooks.LoopCompleteContext) error {
	close(s.entered)
	<-s.release
	return nil
}

// A Stop that would end the loop, whose executor's answer cannot then be
// applied (the log's lock is taken meanwhile, past the lock timeout), is
// refused: running executors between transactions opens no path through the
// gate.
func TestStopRefusedWhenAnExecutorsAnswerCannotBeApplied(t *testing.T) {
	root := t.TempDir()
	finishing := `{"loop": {"id": "finishing", "initial_state": "working", "states": ["working", "done"],
 "events": ["finished"], "transitions": [{"from": "working", "event": "finished", "to": "done"}],
 "terminal_states": ["done"]},
 "codex": {"event_map": [{"codex_event": "Stop", "emit": "finished"}]}}`
	os.WriteFile(filepath.Join(root, "hook-loop.json"), []byte(finishing), 0o644)
	ex := &stopCompleter{entered: make(chan struct{}), release: make(chan struct{})}
	r, err := lifecycle.NewRunner(lifecycle.Entry{Name: "announcer", Handler: ex, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan harness.Output, 1)
	go func() {
		done <- hook.New(hook.Deps{Lifecycle: func(string) (engine.Lifecycle, *engine.LifecycleRecord) { return r, nil }}).
			Run(context.Background(), hook.Request{
				Adapter: codex.New(),
				Flags:   hook.Flags{ConfigPath: filepath.Join(root, "hook-loop.json"), Event: "Stop"},
				Stdin:   strings.NewReader(fmt.Sprintf(stopPayload, "s", root)),
				Cwd:     root,
			})
	}()
	receive(t, ex.entered, "loop_complete never fired")
	held, unlock, released := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(released)
		session.Open(filepath.Join(root, ".hook-loop", "events.jsonl")).Update(func(session.Tx) error {
			close(held)
			<-unlock
			return nil
		})
	}()
	// The holder finishes its transaction before the project folder goes.
	defer func() { close(unlock); <-released }()
	receive(t, held, "the test could not take the log's lock while the executor ran")
	close(ex.release)
	out := receive(t, done, "the Stop never answered")
	if !strings.Contains(string(out.Stdout), `"decision":"block"`) {
		t.Errorf("the Stop went through although its decision was never applied: exit %d stdout %s stderr %s", out.Exit, out.Stdout, out.Stderr)
	}
}

// receive waits for ch, failing the test with what after a generous minute.
func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(time.Minute):
		t.Fatal(what)
	}
	var zero T
	return zero
}
