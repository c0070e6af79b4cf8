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
	"strings"
	"time"

	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/internal/project"
	"github.com/hook-loop/hook-loop/lifecycle"
	"github.com/hook-loop/hook-loop/loop"
	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/loop/session"
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
	Record      bool   // --record: keep the raw input in .hook-loop/trace.jsonl
	// Mode overrides the loop's mode ("": the loop's): HOOK_LOOP_MODE, else
	// the hook command's --mode (see Mode).
	Mode  string
	Stdin io.Reader
	Cwd   string // the hook process's working directory
	// OwnedPaths are the harnesses' own files the agent may not write
	// (registry.OwnedPaths); nil leaves the engine's built-in list.
	OwnedPaths []string
	// Lifecycle overrides loading the user's lifecycle hooks (tests, embedding).
	Lifecycle engine.Lifecycle
	// LoadLifecycle loads the declaration named by HooksConfig (or the user's
	// default); nil means lifecycle.ForHook. It returns the runner and, when the
	// declaration could not be loaded, a record to log (hooks.load_failed).
	LoadLifecycle func(path string) (engine.Lifecycle, *engine.LifecycleRecord)
	Deadline      time.Duration
}

// Run handles one hook invocation and returns what to print. It never panics on
// bad input and never returns an unencoded failure: every error becomes a
// decision (fail open by default, fail closed when the loop says so) that the
// adapter encodes in the harness's own form, plus one line on stderr.
func Run(ctx context.Context, o Options) harness.Output {
	deadline := o.Deadline
	if deadline <= 0 {
		deadline = DefaultDeadline
	}
	ctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()

	paths := resolvePaths(o)
	input, err := readInput(o.Stdin)
	var ev loop.HookEvent
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
	if o.Record && len(input) > 0 {
		if rerr := recordTrace(paths.root, o, input, &ev); rerr != nil && err == nil {
			err = rerr
		}
	}
	if err != nil {
		return failure(o, ev, nil, err)
	}
	spec, _, err := dsl.Load(paths.config)
	if err != nil {
		return failure(o, ev, nil, err)
	}
	if o.Mode != "" && !dsl.ValidMode(o.Mode) {
		return failure(o, ev, spec, fmt.Errorf("mode %q: expected enforce, warn or audit (from HOOK_LOOP_MODE or --mode)", o.Mode))
	}
	eng := &engine.Engine{Spec: spec, Root: paths.root, ConfigPath: paths.config, LogPath: paths.log, OwnedPaths: o.OwnedPaths, Lifecycle: o.Lifecycle, Mode: o.Mode}
	var loadRecord *engine.LifecycleRecord
	if eng.Lifecycle == nil {
		load := o.LoadLifecycle
		if load == nil {
			load = lifecycle.ForHook
		}
		eng.Lifecycle, loadRecord = load(o.HooksConfig)
	}
	log := session.Open(paths.log)
	var d loop.Decision
	err = log.Update(func(tx session.Tx) error {
		// Said once per session: the session then runs hookless, and a broken
		// declaration should not double every hook's log lines.
		if sid := engine.SessionKey(ev.SessionID); loadRecord != nil && tx.Session(sid).Events == 0 {
			if _, aerr := tx.Append(eventlog.Event{SessionID: sid, RunID: ev.TurnID, State: tx.Session(sid).State,
				EventType: loadRecord.Type, Actor: "lifecycle", Payload: loadRecord.Payload}); aerr != nil {
				return aerr
			}
		}
		var herr error
		d, herr = eng.Handle(ctx, tx, ev)
		return herr
	})
	if err != nil {
		return failure(o, ev, spec, fmt.Errorf("event log %s: %w", paths.log, err))
	}
	out := o.Adapter.Encode(ev, d)
	if w := log.Warnings(); len(w) > 0 {
		out.Stderr = appendLine(out.Stderr, "hook-loop: warning: "+strings.Join(w, "; "))
	}
	return out
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
	data, err := io.ReadAll(io.LimitReader(r, MaxInput+1))
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

// failure turns an error into the harness's answer: the agent proceeds and the
// person is told, unless the loop is fail_closed, in which case stops and tool
// calls are refused.
func failure(o Options, ev loop.HookEvent, spec *dsl.Spec, err error) harness.Output {
	var d loop.Decision
	if spec != nil {
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
	p := resolvePaths(o).config
	data, err := os.ReadFile(p)
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
