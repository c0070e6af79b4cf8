package hookrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/loop"
	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/loop/pin"
	"github.com/hook-loop/hook-loop/project"
	"github.com/hook-loop/hook-loop/project/userconfig"
)

// MaxInput caps what a hook reads from stdin. Real payloads are a few KiB; a
// PostToolUse with a huge tool output is the largest seen. Past the cap the input
// is refused (the agent proceeds) rather than read into memory.
const MaxInput = 8 << 20

// DefaultDeadline bounds one hook invocation, lifecycle hooks included, so that
// hook-loop answers before the harness's own timeout kills it.
const DefaultDeadline = 25 * time.Second

// Options are one hook invocation's inputs.
type Options struct {
	Adapter     harness.Adapter
	Event       string // --event ("" = from the payload, where the harness says it)
	ConfigPath  string // --config ("" = <project root>/hook-loop.json)
	LogPath     string // --event-log ("" = <project root>/.hook-loop/events.jsonl)
	HooksConfig string // --hooks-config (lifecycle hooks declaration)
	// Store is --store: a postgres:// URL to keep the log in ("" = StoreURL's
	// other sources, else the JSONL file).
	Store string
	// Getenv reads the environment (os.Getenv when nil).
	Getenv func(string) string
	Record bool // --record: keep the raw input in .hook-loop/trace.jsonl
	Stdin  io.Reader
	Cwd    string // the hook process's working directory
	// Mode overrides the loop's mode ("": the loop's): HOOK_LOOP_MODE, else
	// the hook command's --mode (see Mode).
	Mode string
	// OwnedPaths are the harnesses' own files the agent may not write
	// (adapters/registry/hooks.OwnedPaths); nil leaves the engine's built-in list.
	OwnedPaths []string
	// Lifecycle overrides loading the user's lifecycle hooks (tests, embedding).
	Lifecycle engine.Lifecycle
	// LoadLifecycle loads the declaration named by HooksConfig (or the user's
	// default): the runner and, when the declaration could not be loaded, a
	// record to log (hooks.load_failed). nil is a binary without lifecycle
	// support: a declaration that exists is then logged as not loaded.
	// full.With sets lifecycle.ForHook.
	LoadLifecycle func(path string) (engine.Lifecycle, *engine.LifecycleRecord)
	// StoreURL resolves the store from Store and the environment (nil:
	// LeanStoreURL); full.With sets one that also reads the user config.
	StoreURL func(flag string, getenv func(string) string) (string, error)
	// OpenDB opens a database store (nil: a store URL is refused).
	OpenDB OpenDB
	// LogCache keeps the fold of the JSONL log between hooks of one process
	// (eventlog.Cache: reused while no other process touched the log, as
	// decided under its lock); nil in a one-shot hook, which reads its log
	// once. The co-process (internal/serve) sets it. A database store keeps
	// nothing.
	LogCache *eventlog.Cache
	// IndexLater, when set, gets what is left of the JSONL log's Update
	// once the hook's events are written (the index, under the lock; see
	// eventlog.WithIndexLater), for its caller to run after it answers.
	// It is called at most once per Run; when it is, the caller must run
	// what it got.
	IndexLater func(finish func())
	Deadline   time.Duration
	// Judge returns the loop session sid is judged by, inside the log's
	// transaction; nil means pin.Default().Judge. The co-process passes one
	// that keeps what it parsed (internal/serve); it must log and refuse
	// exactly what Judge does.
	Judge func(tx pin.Tx, sid string, f pin.File) (*dsl.Spec, string, error)
	// Lost is set when the hook server (internal/hookd) took this event and
	// gave no answer the client can go by (it stopped answering, or was not
	// to be trusted after all): the event may be in the log already, so it
	// is not run again (it could count twice); it is answered as a failure
	// that refuses stops and tool calls, whatever fail_closed says — the
	// server may have been killed by the agent it gates. The next event is the
	// server's again, or a one-shot hook's.
	Lost string
}

// Run handles one hook invocation and returns what to print. It never panics on
// bad input and never returns an unencoded failure: every error becomes a
// decision (fail open by default, fail closed when the loop says so) that the
// adapter encodes in the harness's own form, plus one line on stderr.
func Run(ctx context.Context, o Options) (out harness.Output) {
	var ev loop.HookEvent
	defer func() {
		// A bug reached by what the agent wrote (a command, a patch) must not
		// crash the hook into the harness's own error path, which lets the
		// agent proceed: it answers like any other failure.
		if r := recover(); r != nil {
			out = failure(o, ev, nil, fmt.Errorf("internal error: %v", r))
		}
	}()
	deadline := o.Deadline
	if deadline <= 0 {
		deadline = DefaultDeadline
	}
	ctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()

	paths := resolvePaths(o)
	input, err := readInput(o.Stdin)
	if err == nil {
		ev, err = o.Adapter.Decode(o.Event, input)
		if err != nil {
			err = harness.InputError(o.Adapter.Harness(), o.Event, err)
		}
	}
	if ev.Harness == "" {
		ev.Harness = o.Adapter.Harness()
	}
	if ev.Name == "" {
		ev.Name = harness.CanonicalEvent(o.Adapter, o.Event)
		if ev.Name != o.Event && ev.NativeName == "" {
			ev.NativeName = o.Event
		}
	}
	// A lost event's input was recorded, if at all, by the server that took it.
	if o.Record && len(input) > 0 && o.Lost == "" {
		if rerr := recordTrace(paths.root, o, input, &ev); rerr != nil && err == nil {
			err = rerr
		}
	}
	if err != nil {
		return failure(o, ev, nil, err)
	}
	if o.Lost != "" {
		return failure(o, ev, nil, &closedError{error: fmt.Errorf("the hook server took this event and gave no answer to go by (%s); it may be in the log already, so it is not run again", o.Lost),
			why: " (refused this once, so that a server killed mid-event cannot open the gate; the next attempt is answered as usual)"})
	}
	resolveStore := o.StoreURL
	if resolveStore == nil {
		resolveStore = LeanStoreURL
	}
	storeURL, err := resolveStore(o.Store, o.Getenv)
	if err != nil {
		return failure(o, ev, nil, err)
	}
	if o.Mode != "" && !dsl.ValidMode(o.Mode) {
		return failure(o, ev, nil, fmt.Errorf("mode %q: expected enforce, warn or audit (from HOOK_LOOP_MODE or --mode)", o.Mode))
	}
	file := pin.ReadFile(paths.config)
	if storeURL == "" && !exists(paths.log) {
		// No log, so no session has pinned a loop: a bad file is reported
		// without creating the log.
		if err := pin.Check(file, o.ConfigPath != ""); err != nil {
			return failure(o, ev, nil, logError(paths, err))
		}
	}
	eng := &engine.Engine{Root: paths.root, ConfigPath: paths.config, LogPath: paths.log, OwnedPaths: o.OwnedPaths, Lifecycle: o.Lifecycle, Mode: o.Mode}
	var stderr []string
	if eng.Lifecycle == nil {
		load := o.LoadLifecycle
		if load == nil {
			load = noLifecycle
		}
		eng.Lifecycle, eng.HooksLoadFailed = load(o.HooksConfig)
	}
	if ev.ToolName != "" {
		agentEnv(eng, o.HooksConfig)
	}
	budget, lockOpts := LockedLifecycleBudget, []eventlog.Option(nil)
	if ev.Name == loop.EventSessionEnd {
		// Codex clamps its SessionEnd hook to 3 s: wait and work less there.
		budget, lockOpts = sessionEndBudget, []eventlog.Option{eventlog.WithLockTimeout(sessionEndBudget)}
	}
	if o.LogCache != nil {
		lockOpts = append(lockOpts, eventlog.WithCache(o.LogCache))
	}
	if o.IndexLater != nil {
		lockOpts = append(lockOpts, eventlog.WithIndexLater(o.IndexLater))
	}
	log, err := OpenStore(storeURL, paths.root, paths.log, o.Getenv, storeBudget(ctx, ev.Name, budget), o.OpenDB, lockOpts...)
	if err != nil {
		return failure(o, ev, nil, err)
	}
	defer log.Close()
	// The database store reads the session's row with its first round trip.
	expect(log, engine.SessionKey(ev.SessionID))
	var d loop.Decision
	err = log.Update(func(tx engine.Tx) error {
		stderr = stderr[:0] // what this run of the transaction found
		sid := engine.SessionKey(ev.SessionID)
		judge := o.Judge
		if judge == nil {
			judge = pin.Default().Judge
		}
		spec, notice, err := judge(tx, sid, file)
		if err != nil {
			return err
		}
		eng.Spec = spec
		if notice != "" {
			stderr = append(stderr, notice)
		}
		if eng.HooksLoadFailed != nil && !tx.Session(sid).HooksLoadFailed {
			stderr = append(stderr, fmt.Sprintf("hook-loop: lifecycle hooks did not load: %v", eng.HooksLoadFailed.Payload["why"]))
		}
		// Lifecycle executors run under the log's lock, so their time there is
		// capped (LockedLifecycleBudget) well below the lock timeout other
		// sessions' hooks wait for: a slow executor can cost its own session a
		// check, never another session's answer. They stay under the lock
		// because what they decide (proceed, a transition's hooks) is part of the
		// transition they guard; deciding outside and re-validating would let two
		// sessions of a project-scoped loop act on the same stale state.
		hctx, cancel := context.WithTimeout(ctx, budget)
		defer cancel()
		var herr error
		d, herr = eng.Handle(hctx, tx, ev)
		if notice != "" && herr == nil {
			d.SystemMessage = strings.TrimSpace(d.SystemMessage + "\n" + notice)
		}
		return herr
	})
	if err != nil {
		spec := eng.Spec
		if spec == nil && file.Err == nil {
			// The log failed before the session's loop was judged (a lock that
			// timed out, a log that cannot open): the file still says whether
			// to fail closed.
			spec, _, _ = dsl.Parse(paths.config, file.Data)
		}
		if storeURL != "" && !errors.Is(err, pin.ErrMissing) {
			var gone *pin.GoneError
			if !errors.As(err, &gone) {
				// The store's errors name the database (never the password).
				return failure(o, ev, spec, err)
			}
		}
		return failure(o, ev, spec, logError(paths, err))
	}
	out = o.Adapter.Encode(ev, d)
	for _, line := range stderr {
		out.Stderr = appendLine(out.Stderr, line)
	}
	if w := log.Warnings(); len(w) > 0 {
		out.Stderr = appendLine(out.Stderr, "hook-loop: warning: "+strings.Join(w, "; "))
	}
	return out
}

// LockedLifecycleBudget caps the time lifecycle executors may run while one
// hook holds the event log's lock: well below eventlog.DefaultLockTimeout, so
// another session's hook waiting behind it still gets the lock and answers.
const LockedLifecycleBudget = 2 * time.Second

// sessionEndBudget bounds both the lock wait and the lifecycle time of a
// SessionEnd, whose harness timeout can be as short as 3 s (Codex).
const sessionEndBudget = time.Second

// logError names what failed with the event log or the session's loop.
func logError(paths resolved, err error) error {
	var gone *pin.GoneError
	var bad *dsl.LoadError
	switch {
	case errors.As(err, &bad):
		return err // it names the loop file
	case errors.As(err, &gone), errors.Is(err, pin.ErrMissing):
		// Without its loop the gate is open: refused whatever fail_closed says.
		return &closedError{error: err, why: " (without its loop the gate would be open, so hook-loop refuses whatever fail_closed says)"}
	case errors.Is(err, eventlog.ErrLockTimeout):
		return err // one line that names the lock and the wait
	}
	return fmt.Errorf("event log %s: %w", paths.log, err)
}

// closedError is a failure that refuses stops and tool calls even in a loop
// that is not fail_closed.
type closedError struct {
	error
	why string // what the refusal's reason adds
}

func (e *closedError) Unwrap() error { return e.error }

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

type resolved struct{ root, config, log string }

func resolvePaths(o Options) resolved {
	cwd := o.Cwd
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	r := resolved{config: o.ConfigPath, log: o.LogPath}
	abs := func(p string) string {
		if p != "" && !filepath.IsAbs(p) {
			return filepath.Join(cwd, p)
		}
		return p
	}
	r.config, r.log = abs(r.config), abs(r.log)
	switch {
	case r.config != "":
		// An explicit loop file anchors the project: installs write absolute paths
		// so a hook started in a subdirectory still finds its loop.
		r.root = filepath.Dir(r.config)
	default:
		r.root = project.Root(cwd)
		r.config = project.ConfigPath(r.root)
	}
	if r.log == "" {
		r.log = project.LogPath(r.root)
	}
	return r
}

func readInput(r io.Reader) ([]byte, error) {
	if r == nil {
		return nil, errors.New("no input: the hook expects the event JSON on stdin")
	}
	data, err := readAll(r, MaxInput+1)
	if err != nil {
		return nil, fmt.Errorf("read stdin: %w", err)
	}
	if len(data) > MaxInput {
		return nil, fmt.Errorf("stdin is larger than the %d MiB cap; refusing to read it", MaxInput>>20)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("stdin is empty: the hook expects the event JSON on stdin")
	}
	if err := checkNesting(data); err != nil {
		return nil, err
	}
	return data, nil
}

// inputBuffer is what readAll reads into first: the harnesses' payloads are
// 300 bytes to 1 KiB but for large tool outputs, and io.ReadAll's buffer,
// starting at 512 bytes, took a read and a copy per growth to hold one.
const inputBuffer = 4 << 10

// readAll is io.ReadAll of at most limit bytes of r, into an inputBuffer first.
func readAll(r io.Reader, limit int64) ([]byte, error) {
	data := make([]byte, 0, min(inputBuffer, limit+1))
	lr := &io.LimitedReader{R: r, N: limit}
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := lr.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return data, err
		}
	}
}

// failure turns an error into the harness's answer: the agent proceeds and the
// person is told, unless the loop is fail_closed, in which case stops and tool
// calls are refused.
func failure(o Options, ev loop.HookEvent, spec *dsl.Spec, err error) harness.Output {
	var d loop.Decision
	var closed *closedError
	if errors.As(err, &closed) {
		d = engine.Refusal(ev.Name, err, closed.why)
	} else if spec != nil {
		d = engine.Failure(ev.Name, err, spec.Definition.FailClosed, true)
	} else {
		// The loop did not load; its file may still ask to fail closed.
		d = engine.Failure(ev.Name, err, failClosedHint(o), false)
	}
	out := o.Adapter.Encode(ev, d)
	out.Stderr = appendLine(out.Stderr, engine.FailureMessage(err))
	return out
}

// failClosedHint reads loop.fail_closed straight from the loop file when the file
// could not be fully loaded, so a broken loop that asked to fail closed still does.
func failClosedHint(o Options) bool {
	f := pin.ReadFile(resolvePaths(o).config)
	data, err := f.Data, f.Err
	if err != nil {
		return false
	}
	var doc struct {
		Loop struct {
			FailClosed bool `json:"fail_closed"`
		} `json:"loop"`
	}
	if json.Unmarshal(data, &doc) != nil {
		return false
	}
	return doc.Loop.FailClosed
}

func appendLine(b []byte, line string) []byte {
	if len(b) > 0 && b[len(b)-1] != '\n' {
		b = append(b, '\n')
	}
	return append(b, line+"\n"...)
}

// TraceLine is one line of .hook-loop/trace.jsonl, as `--record` writes it and
// `hook-loop replay` reads it.
type TraceLine struct {
	Time     string          `json:"time"`
	Harness  string          `json:"harness"`
	Event    string          `json:"event,omitempty"`
	Input    json.RawMessage `json:"input"`
	ExitCode *int            `json:"exit_code,omitempty"`
}

// recordTrace appends the raw input to <root>/.hook-loop/trace.jsonl so that
// `hook-loop replay` can feed a real session through an edited loop.
func recordTrace(root string, o Options, input []byte, ev *loop.HookEvent) error {
	dir := filepath.Join(root, ".hook-loop")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("record trace: %w", err)
	}
	compact := json.RawMessage(input)
	if !json.Valid(input) {
		b, _ := json.Marshal(string(input))
		compact = b
	}
	// The exit code is kept beside the input because some harnesses (Codex) only
	// reveal it through files that are gone by the time a trace is replayed.
	var exit *int
	if ev != nil && ev.Result != nil {
		exit = ev.Result.ExitCode
	}
	line, err := json.Marshal(TraceLine{
		Time: time.Now().UTC().Format(time.RFC3339Nano), Harness: o.Adapter.Harness(),
		Event: o.Event, Input: compact, ExitCode: exit,
	})
	if err != nil {
		return fmt.Errorf("record trace: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "trace.jsonl"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("record trace: %w", err)
	}
	defer f.Close()
	// One write of one line: O_APPEND keeps concurrent hooks' lines whole.
	if _, err := f.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("record trace: %w", err)
	}
	return nil
}

// agentEnv gives the engine what the guard needs to read a tool call as the
// agent's shell would run it: the environment the harness passed on (the
// agent's commands inherit it), the running binary (a command naming it runs
// hook-loop), and the lifecycle declaration with its executor files, which
// the agent may not change either.
func agentEnv(eng *engine.Engine, hooksConfig string) {
	env := os.Environ()
	eng.Vars = make(map[string]string, len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			eng.Vars[k] = v
		}
	}
	eng.Home = eng.Vars["HOME"]
	eng.Self = selfPath
	eng.OwnedPaths = append(slices.Clip(eng.OwnedPaths), userconfig.Files(hooksConfig, os.Getenv)...)
	if hooksConfig != "" {
		// The user's default config is read whatever --hooks-config says: its
		// "store" key chooses where the log lives.
		eng.OwnedPaths = append(eng.OwnedPaths, userconfig.Files("", os.Getenv)...)
	}
	if r, ok := eng.Lifecycle.(interface{ ExecutorFiles() []string }); ok {
		// The declaration the engine runs, loaded once for this hook.
		eng.OwnedPaths = append(eng.OwnedPaths, r.ExecutorFiles()...)
	}
	// The user's state: the logs' keys, and the logs an install --state user
	// keeps there.
	eng.OwnedPaths = append(eng.OwnedPaths, filepath.Clean(eventlog.StateDir())+string(filepath.Separator))
}

// selfPath is the running binary, symbolic links resolved ("" when unknown),
// looked up once and only if the guard asks: most tool calls name no program
// by a path, and the lookup is a readlink and an lstat per directory.
var selfPath = sync.OnceValue(func() string {
	self, err := os.Executable()
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(self); err == nil {
		self = real
	}
	return self
})

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
