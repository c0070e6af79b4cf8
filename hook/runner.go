// Package hook is where a harness's hook enters hook-loop: one event read
// from the hook's stdin, decoded by the harness's adapter, judged by the
// loop engine inside the event log's transaction, and encoded back into the
// harness's own answer. A Runner is built once per process from what it
// depends on (where logs are kept, the lifecycle hooks, the loops); each
// event is one Run.
package hook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/loop"
	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/loop/pin"
	"github.com/hook-loop/hook-loop/loop/session"
	"github.com/hook-loop/hook-loop/project"
	"github.com/hook-loop/hook-loop/project/roster"
)

// DefaultDeadline bounds one hook invocation, lifecycle hooks included, so that
// hook-loop answers before the harness's own timeout kills it.
const DefaultDeadline = 25 * time.Second

// Deps are what a Runner is built from. The zero value of each field is what
// the lean hook binary has: the JSONL log only, no lifecycle hooks, loops
// pinned in the user's state directory.
type Deps struct {
	// Stores resolves and opens the log a hook keeps (LeanStores when nil).
	Stores Stores
	// Lifecycle loads the declaration of the user's lifecycle hooks
	// (NoLifecycle when nil).
	Lifecycle LifecycleLoader
	// Loops judges which loop a session is judged by (pin.Default() when nil).
	Loops Loops
	// Cache keeps the JSONL log's fold between the events of one long-lived
	// process (the co-process of `hook-loop serve`); nil reads the log afresh.
	Cache *eventlog.Cache
	// OwnedPaths are the harnesses' own files the agent may not write.
	OwnedPaths []string
	// Getenv reads the environment (os.Getenv when nil).
	Getenv   func(string) string
	Deadline time.Duration
}

// LifecycleLoader loads the lifecycle hooks declared at path ("" for the
// user's default): the runner, and a record to log when the declaration
// could not be loaded (hooks.load_failed).
type LifecycleLoader func(path string) (engine.Lifecycle, *engine.LifecycleRecord)

// Loops gives the loop a session is judged by, inside the log's transaction
// (pin.Store.Judge).
type Loops interface {
	Judge(tx pin.Tx, sid string, f *pin.File) (spec *dsl.Spec, notice string, err error)
}

// Request is one event: the harness's adapter, the hook command's flags, its
// stdin and working directory.
type Request struct {
	Adapter harness.Adapter
	Flags
	Stdin io.Reader
	Cwd   string // the hook process's working directory
}

// Runner runs hooks.
type Runner struct {
	stores     Stores
	lifecycle  LifecycleLoader
	loops      Loops
	cache      *eventlog.Cache
	ownedPaths []string
	getenv     func(string) string
	deadline   time.Duration
	stops      failedStops
}

// New builds a Runner from d.
func New(d Deps) *Runner {
	r := &Runner{stores: d.Stores, lifecycle: d.Lifecycle, loops: d.Loops, cache: d.Cache,
		ownedPaths: d.OwnedPaths, getenv: d.Getenv, deadline: d.Deadline}
	if r.stores == nil {
		r.stores = LeanStores{}
	}
	if r.lifecycle == nil {
		r.lifecycle = NoLifecycle
	}
	if r.loops == nil {
		r.loops = pin.Default()
	}
	if r.getenv == nil {
		r.getenv = os.Getenv
	}
	if r.deadline <= 0 {
		r.deadline = DefaultDeadline
	}
	r.stops = newFailedStops(project.UserStateDir(r.getenv))
	return r
}

// event is what one Run has learned so far, for its answer and its failures.
type event struct {
	req   Request
	paths resolved
	ev    loop.HookEvent
	file  *pin.File // the loop file, read and parsed at most once
}

// Run handles one event and returns what to print. It never panics on bad
// input and never returns an unencoded failure: every error becomes a
// decision (stops refused; tool calls too when the loop is fail_closed) that
// the adapter encodes in the harness's own form, plus one line on stderr.
func (r *Runner) Run(ctx context.Context, req Request) (out harness.Output) {
	e := &event{req: req, paths: resolvePaths(req.Flags, req.Cwd, r.getenv)}
	defer func() {
		// A bug reached by what the agent wrote (a command, a patch) must not
		// crash the hook into the harness's own error path, which lets the
		// agent proceed: it answers like any other failure.
		if p := recover(); p != nil {
			out = r.failure(e, fmt.Errorf("internal error: %v", p))
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, r.deadline)
	defer cancel()
	if err := r.decode(e); err != nil {
		return r.failure(e, err)
	}
	d, notices, warnings, err := r.decide(ctx, e)
	if err != nil {
		return r.failure(e, err)
	}
	out = req.Adapter.Encode(e.ev, d)
	for _, line := range notices {
		out.Stderr = appendLine(out.Stderr, line)
	}
	if len(warnings) > 0 {
		out.Stderr = appendLine(out.Stderr, "hook-loop: warning: "+strings.Join(warnings, "; "))
	}
	return out
}

// decode reads the event from stdin and records it when asked.
func (r *Runner) decode(e *event) error {
	a := e.req.Adapter
	input, err := readInput(e.req.Stdin)
	if err == nil {
		e.ev, err = a.Decode(e.req.Event, input)
		if err != nil {
			err = harness.InputError(a.Harness(), e.req.Event, err)
		}
	}
	if e.ev.Harness == "" {
		e.ev.Harness = a.Harness()
	}
	if e.ev.Name == "" {
		e.ev.Name = harness.CanonicalEvent(a, e.req.Event)
		if e.ev.Name != e.req.Event && e.ev.NativeName == "" {
			e.ev.NativeName = e.req.Event
		}
	}
	var shape *shapeError
	var argsShape *harness.ShapeError
	if (errors.As(err, &shape) || errors.As(err, &argsShape)) && (e.ev.Name == loop.EventPreToolUse || e.ev.Name == loop.EventPermissionRequest) {
		// Nesting and size are the tool input's, which the agent writes: a
		// call it made unreadable on purpose is refused, whatever
		// fail_closed says.
		err = &closedError{error: err, why: " (a tool call hook-loop cannot read is refused whatever fail_closed says: its input is the agent's to shape)"}
	}
	if e.req.Record && len(input) > 0 {
		if rerr := recordTrace(filepath.Dir(e.paths.log), a.Harness(), e.req.Event, input, &e.ev); rerr != nil && err == nil {
			err = rerr
		}
	}
	return err
}

// decide runs the engine on the event inside the log's transaction.
func (r *Runner) decide(ctx context.Context, e *event) (d loop.Decision, notices, warnings []string, err error) {
	if s := e.req.State; s != "" && s != project.StateProject && s != project.StateUser {
		// Guessing would write a log `status` and the board do not read.
		return d, nil, nil, fmt.Errorf("--state %q: expected %s or %s", s, project.StateProject, project.StateUser)
	}
	storeURL, err := r.stores.URL(e.req.Store, r.getenv)
	if err != nil {
		return d, nil, nil, err
	}
	mode := Mode(r.getenv, e.req.Mode)
	if mode != "" && !dsl.ValidMode(mode) {
		return d, nil, nil, fmt.Errorf("mode %q: expected enforce, warn or audit (from HOOK_LOOP_MODE or --mode)", mode)
	}
	e.file = pin.ReadFile(e.paths.config)
	if storeURL == "" && !exists(e.paths.log) {
		// No log, so no session has pinned a loop: a bad file is reported
		// without creating the log.
		if e.req.ConfigPath == "" && errors.Is(e.file.Err, fs.ErrNotExist) {
			return d, nil, nil, &notSetUpError{path: e.paths.config}
		}
		if err := pin.Check(e.file, e.req.ConfigPath != ""); err != nil {
			return d, nil, nil, logError(e.paths, err)
		}
	}
	eng := &engine.Engine{Root: e.paths.root, ConfigPath: e.paths.config, LogPath: e.paths.log, OwnedPaths: r.ownedPaths, Mode: mode}
	eng.Lifecycle, eng.HooksLoadFailed = r.lifecycle(e.req.HooksConfig)
	if e.ev.ToolName != "" {
		agentEnv(eng, e.req.HooksConfig)
	}
	budget, lockOpts := LockedLifecycleBudget, []eventlog.Option(nil)
	if e.ev.Name == loop.EventSessionEnd {
		// Codex clamps its SessionEnd hook to 3 s: wait and work less there.
		budget, lockOpts = sessionEndBudget, []eventlog.Option{eventlog.WithLockTimeout(sessionEndBudget)}
	}
	if r.cache != nil {
		lockOpts = append(lockOpts, eventlog.WithCache(r.cache))
	}
	log, err := r.stores.Open(storeURL, e.paths.root, e.paths.log, r.getenv, storeBudget(ctx, e.ev.Name, budget), lockOpts...)
	if err != nil {
		return d, nil, nil, err
	}
	defer log.Close()
	sid := engine.SessionKey(e.ev.SessionID)
	// The database store reads the session's row with its first round trip.
	expect(log, sid)
	var stage *engine.Staged
	if eng.Lifecycle != nil {
		stage = engine.NewStaged(eng.Lifecycle)
		eng.Lifecycle = stage
	}
	// A SessionEnd (Codex allows it 3 s) has no time for a second pass: its
	// chains run under the lock, within sessionEndBudget.
	passes := engine.Passes{Stage: stage, Budget: budget, LockWait: log.LockWait(), Inline: e.ev.Name == loop.EventSessionEnd}
	err = passes.Run(ctx, func() error {
		return log.Update(func(tx engine.Tx) error {
			notices = notices[:0] // what this run of the transaction found
			spec, notice, err := r.loops.Judge(tx, sid, e.file)
			if err != nil {
				return err
			}
			eng.Spec = spec
			if notice != "" {
				notices = append(notices, notice)
			}
			// The loop's state before the event (the project's, for a
			// project-scoped loop): the failed-stop record below carries it.
			state := session.Scoped(tx, sid, spec.Definition.Scope == dsl.ScopeProject).State
			if eng.HooksLoadFailed != nil && !tx.Session(sid).HooksLoadFailed {
				notices = append(notices, fmt.Sprintf("hook-loop: lifecycle hooks did not load: %v", eng.HooksLoadFailed.Payload["why"]))
			}
			// A chain run under the lock (the last pass only) is capped well
			// below the lock timeout other sessions' hooks wait for.
			hctx, cancel := context.WithTimeout(ctx, budget)
			defer cancel()
			var herr error
			d, herr = eng.Handle(hctx, tx, e.ev)
			if stage.Missed() {
				return engine.ErrStaged
			}
			if notice != "" && herr == nil {
				d.SystemMessage = strings.TrimSpace(d.SystemMessage + "\n" + notice)
			}
			if herr != nil {
				return herr
			}
			// The hook works again: a run of stops refused for failures ends
			// here. Cleared only in the pass that commits, since clearing
			// removes a file no rollback restores.
			return r.stops.clear(tx, e.paths.root, sid, state)
		})
	})
	var late *engine.OutOfTimeError
	if errors.As(err, &late) {
		return d, nil, nil, late.Err // out of time: refused as any failure is
	}
	if err != nil {
		if storeURL != "" && !errors.Is(err, pin.ErrMissing) {
			var gone *pin.GoneError
			if !errors.As(err, &gone) {
				// The store's errors name the database (never the password).
				return d, nil, nil, err
			}
		}
		return d, nil, nil, logError(e.paths, err)
	}
	// `status --all`, `board --all` and `notify` find the project here. A
	// stat when it is known already; a failure to record it changes nothing.
	entry := roster.Entry{Root: e.paths.root, Config: e.paths.config, Log: e.paths.log}
	if storeURL != "" {
		entry.Log, entry.Store = "", true
	}
	_ = roster.Register(project.UserStateDir(r.getenv), entry)
	return d, notices, log.Warnings(), nil
}

// LockedLifecycleBudget caps the time lifecycle executors may run while one
// hook holds the event log's lock — only in the last pass a session moved by
// other events at every pass gets (engine.MaxStagedPasses): well below
// eventlog.DefaultLockTimeout, so another session's hook waiting behind it
// still gets the lock and answers.
const LockedLifecycleBudget = 2 * time.Second

// sessionEndBudget bounds both the lock wait and the lifecycle time of a
// SessionEnd, whose harness timeout can be as short as 3 s (Codex).
const sessionEndBudget = time.Second

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func appendLine(b []byte, line string) []byte {
	if len(b) > 0 && b[len(b)-1] != '\n' {
		b = append(b, '\n')
	}
	return append(b, line+"\n"...)
}

// ModeEnv names the per-run mode override.
const ModeEnv = "HOOK_LOOP_MODE"

// Mode is the mode override of one run: HOOK_LOOP_MODE wins over the hook
// command's --mode (an install's), which wins over the loop file's loop.mode.
func Mode(getenv func(string) string, flag string) string {
	if m := strings.TrimSpace(getenv(ModeEnv)); m != "" {
		return m
	}
	return flag
}
