package lifecycle_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/adapters/codex"
	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/hook"
	"github.com/hook-loop/hook-loop/lifecycle"
	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/loop/session"
	"github.com/hook-loop/hook-loop/sdk/hooks"
)

// lockProbe records whether the event log's lock was held while it ran.
type lockProbe struct {
	log  string
	held chan bool
}

func (p *lockProbe) ToolRequested(ctx context.Context, c *hooks.ToolRequestedContext) error {
	err := session.Open(p.log, eventlog.WithLockTimeout(50*time.Millisecond)).Update(func(session.Tx) error { return nil })
	p.held <- errors.Is(err, eventlog.ErrLockTimeout)
	return nil
}

// A hook whose deadline leaves no room for an unlocked chain and the passes
// after it runs the chain in its one pass, under the lock and its budget,
// instead of staging it and overrunning the harness's timeout.
func TestShortDeadlineRunsTheChainInline(t *testing.T) {
	runsLocked(t, 8*time.Second, "the chain ran unlocked although the deadline left no time for the passes after it")
}

// A deadline that leaves room for the passes but less than the locked budget
// for an unlocked chain (reserve 13 s, so 14 s leaves it 1 s of its 2 s) runs
// the chain under the lock in the next pass: unlocked, its executors would
// start with almost no time, fail, and a required hook would hold the
// session for nothing, or a tool call would go unchecked.
func TestDeadlineTooShortForAnUnlockedChainRunsItLocked(t *testing.T) {
	runsLocked(t, 14*time.Second, "the chain ran unlocked with less time than its budget under the lock")
}

// runsLocked runs a PreToolUse whose tool_requested hook records whether the
// log's lock was held, under deadline, and fails with why when it was not.
func runsLocked(t *testing.T, deadline time.Duration, why string) {
	t.Helper()
	if !chainLocked(t, deadline, nil) {
		t.Error(why)
	}
}

// waitStores open the JSONL log waiting wait for its lock, whatever
// HOOK_LOOP_LOCK_TIMEOUT says.
type waitStores struct {
	hook.LeanStores
	wait time.Duration
}

func (s waitStores) Open(url, root, logPath string, getenv func(string) string, budget time.Duration, fileOpts ...eventlog.Option) (hook.Store, error) {
	return hook.OpenFile(logPath, append(fileOpts, eventlog.WithLockTimeout(s.wait))...), nil
}

// The time a hook sets aside for the passes after an unlocked chain is its
// store's own lock wait, not HOOK_LOOP_LOCK_TIMEOUT's: with an 8 s deadline
// (reserve: two lock waits, the 2 s locked budget and a second), a store
// that waits 100 ms leaves room for an unlocked chain, one that waits 5 s
// does not.
func TestReserveFollowsTheStoresLockWait(t *testing.T) {
	for _, c := range []struct {
		name      string
		env, wait time.Duration
		locked    bool
	}{
		{"short wait", 5 * time.Second, 100 * time.Millisecond, false},
		{"long wait", 100 * time.Millisecond, 5 * time.Second, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(eventlog.LockTimeoutEnv, c.env.String())
			if got := chainLocked(t, 8*time.Second, waitStores{wait: c.wait}); got != c.locked {
				t.Errorf("the chain ran locked=%v, want %v for a store waiting %v", got, c.locked, c.wait)
			}
		})
	}
}

// chainLocked runs a PreToolUse whose tool_requested hook records whether the
// log's lock was held, under deadline, with stores (the lean ones when nil),
// and reports whether it was.
func chainLocked(t *testing.T, deadline time.Duration, stores hook.Stores) bool {
	t.Helper()
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "hook-loop.json"), []byte(gatedLoop), 0o644)
	probe := &lockProbe{log: filepath.Join(root, ".hook-loop", "events.jsonl"), held: make(chan bool, 4)}
	r, err := lifecycle.NewRunner(lifecycle.Entry{Name: "probe", Handler: probe, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	out := hook.New(hook.Deps{Deadline: deadline, Stores: stores,
		Lifecycle: func(string) (engine.Lifecycle, *engine.LifecycleRecord) { return r, nil }}).
		Run(context.Background(), hook.Request{Adapter: codex.New(),
			Flags: hook.Flags{ConfigPath: filepath.Join(root, "hook-loop.json"), Event: "PreToolUse"},
			Stdin: strings.NewReader(fmt.Sprintf(preToolPayload, "s", root)), Cwd: root})
	if out.Exit != 0 {
		t.Fatalf("exit %d: %s", out.Exit, out.Stderr)
	}
	select {
	case held := <-probe.held:
		return held
	default:
		t.Fatal("the lifecycle hook never ran")
		return false
	}
}
