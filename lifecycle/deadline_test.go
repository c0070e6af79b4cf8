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
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "hook-loop.json"), []byte(gatedLoop), 0o644)
	probe := &lockProbe{log: filepath.Join(root, ".hook-loop", "events.jsonl"), held: make(chan bool, 4)}
	r, err := lifecycle.NewRunner(lifecycle.Entry{Name: "probe", Handler: probe, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	out := hook.New(hook.Deps{Deadline: deadline,
		Lifecycle: func(string) (engine.Lifecycle, *engine.LifecycleRecord) { return r, nil }}).
		Run(context.Background(), hook.Request{Adapter: codex.New(),
			Flags: hook.Flags{ConfigPath: filepath.Join(root, "hook-loop.json"), Event: "PreToolUse"},
			Stdin: strings.NewReader(fmt.Sprintf(preToolPayload, "s", root)), Cwd: root})
	if out.Exit != 0 {
		t.Fatalf("exit %d: %s", out.Exit, out.Stderr)
	}
	select {
	case held := <-probe.held:
		if !held {
			t.Error(why)
		}
	default:
		t.Fatal("the lifecycle hook never ran")
	}
}
