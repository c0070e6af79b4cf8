// Package serve answers a stream of hook requests over NDJSON, for the opencode
// plugin and the pi extension: one long-lived process per host instead of one
// process per event (Node forks without vfork, so every spawn costs more as the
// host grows). Each request runs the hook exactly as the one-shot *-hook
// command would, so decisions, the log's flock and the log itself are the same,
// and hooks of other harnesses in other processes stay safe.
package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/hook"
	"github.com/hook-loop/hook-loop/hook/full"
	"github.com/tidwall/gjson"
)

// Request is one line on stdin. Event, Input and Cwd are what the one-shot hook
// gets from --event, stdin and its working directory; Config and EventLog, when
// set, replace the --config and --event-log the co-process was started with
// (the pi extension finds the loop file from each call's cwd).
type Request struct {
	ID       json.RawMessage `json:"id"`
	Event    string          `json:"event"`
	Input    json.RawMessage `json:"input"`
	Cwd      string          `json:"cwd,omitempty"`
	Config   string          `json:"config,omitempty"`
	EventLog string          `json:"event_log,omitempty"`
}

// Answer is one line on stdout: what the one-shot hook would have printed and
// its exit status, so a plugin handles both paths with the same code.
type Answer struct {
	ID     json.RawMessage `json:"id"`
	Stdout string          `json:"stdout"`
	Stderr string          `json:"stderr"`
	Exit   int             `json:"exit"`
}

// Hello is the first line the co-process writes. A plugin compares the binary's
// identity with the file on disk and replaces a co-process whose binary was
// upgraded under it.
type Hello struct {
	Hello       string `json:"hello"`
	Version     string `json:"version"`
	Harness     string `json:"harness"`
	PID         int    `json:"pid"`
	Binary      string `json:"binary,omitempty"`
	BinarySize  int64  `json:"binary_size,omitempty"`
	BinaryMtime int64  `json:"binary_mtime_ms,omitempty"`
}

// Options are the co-process's settings: the *-hook flags that do not vary per
// request, and the adapter of the harness it serves.
type Options struct {
	Adapter     func() harness.Adapter
	Version     string
	ConfigPath  string
	LogPath     string
	HooksConfig string
	Store       string // --store: a postgres:// URL for the loop's log
	Record      bool
	Mode        string // the mode override every request runs with
	Cwd         string
	// OwnedPaths are every harness's files, which the agent may not write:
	// the same list the one-shot hook passes.
	OwnedPaths []string
	// Run replaces the runner's Run (tests).
	Run func(context.Context, hook.Request) harness.Output
	// ReadLogEachRequest makes every request read its JSONL log (index and
	// tail) as a one-shot hook does, instead of reusing what the previous
	// request left while nothing else wrote the log (benchmarks compare).
	ReadLogEachRequest bool
	// LogCache is what the requests keep of their JSONL logs between them
	// (nil: a new one per Serve, unless ReadLogEachRequest).
	LogCache *eventlog.Cache
}

// maxLine bounds one request line: the hook's own input cap plus room for the
// envelope. A longer line is answered as an error and skipped, never buffered.
const maxLine = hook.MaxInput + 64<<10

// Serve writes the hello line, then answers requests from in, one at a time and
// in order (the plugins serialise their events anyway, and the loop must see
// them in the order the harness fired them), until in ends or ctx is done.
func Serve(ctx context.Context, in io.Reader, out io.Writer, o Options) error {
	w := bufio.NewWriter(out)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(hello(o)); err != nil {
		return fmt.Errorf("write hello: %w", err)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write hello: %w", err)
	}
	r := bufio.NewReaderSize(in, 64<<10)
	logs := o.LogCache
	if logs == nil && !o.ReadLogEachRequest {
		logs = eventlog.NewCache()
	}
	run := o.Run
	if run == nil {
		run = hook.New(full.Deps(hook.Deps{Loops: newLoopCache(), Cache: logs, OwnedPaths: o.OwnedPaths})).Run
	}
	for ctx.Err() == nil {
		line, err := readLine(r)
		tooLong := errors.Is(err, errLineTooLong)
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			var readErr error
			if tooLong {
				readErr = err
			}
			a := answer(ctx, o, run, line, readErr)
			if werr := enc.Encode(a); werr != nil {
				return fmt.Errorf("write answer: %w", werr)
			}
			if werr := w.Flush(); werr != nil {
				return fmt.Errorf("write answer: %w", werr)
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil && !tooLong {
			return fmt.Errorf("read request: %w", err)
		}
	}
	return ctx.Err()
}

var errLineTooLong = fmt.Errorf("request line is longer than %d MiB; skipped", maxLine>>20)

// readLine reads one newline-terminated line. A line past maxLine is drained and
// reported as errLineTooLong, so one oversized event does not end the stream.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) <= maxLine {
			line = append(line, chunk...)
		} else {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.ReadSlice('\n')
			}
			if err == nil {
				err = errLineTooLong
			}
			return nil, err
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}

// answer runs one request. A panic answers this request as a failed hook (exit
// 1, one line on stderr): the plugin then applies the loop's fail-open or
// fail-closed rule, as for a one-shot hook that crashed, and the next request is
// served as usual.
func answer(ctx context.Context, o Options, run func(context.Context, hook.Request) harness.Output, line []byte, readErr error) (a Answer) {
	var req Request
	if readErr != nil {
		return Answer{ID: json.RawMessage("null"), Stderr: "hook-loop: serve: " + readErr.Error() + "\n", Exit: 1}
	}
	if err := json.Unmarshal(line, &req); err != nil {
		// encoding/json refuses input nested deeper than it recurses; the
		// envelope's fields are still read (gjson does not recurse), so that
		// the hook refuses a tool call the agent nested that deep rather than
		// the plugin letting it through as an unanswered request.
		if req = lenient(line); req.Event == "" {
			return Answer{ID: json.RawMessage("null"), Stderr: "hook-loop: serve: request: expected one JSON object {id, event, input} per line: " + err.Error() + "\n", Exit: 1}
		}
	}
	a.ID = req.ID
	if len(a.ID) == 0 {
		a.ID = json.RawMessage("null")
	}
	defer func() {
		if p := recover(); p != nil {
			a = Answer{ID: a.ID, Stderr: fmt.Sprintf("hook-loop: serve: %s request panicked: %v\n%s", req.Event, p, debug.Stack()), Exit: 1}
		}
	}()
	cfg, log := o.ConfigPath, o.LogPath
	if req.Config != "" {
		cfg, log = req.Config, req.EventLog
	} else if req.EventLog != "" {
		log = req.EventLog
	}
	cwd := req.Cwd
	if cwd == "" {
		cwd = o.Cwd
	}
	var stdin io.Reader = bytes.NewReader(req.Input)
	if len(req.Input) == 0 || string(req.Input) == "null" {
		// The one-shot hook refuses an empty stdin with its own message.
		stdin = bytes.NewReader(nil)
	}
	out := run(ctx, hook.Request{
		Adapter: o.Adapter(),
		Flags: hook.Flags{Event: req.Event, ConfigPath: cfg, LogPath: log, HooksConfig: o.HooksConfig,
			Store: o.Store, Mode: o.Mode, Record: o.Record},
		Stdin: stdin,
		Cwd:   cwd,
	})
	a.Stdout, a.Stderr, a.Exit = string(out.Stdout), string(out.Stderr), out.Exit
	return a
}

// lenient reads a request's envelope without decoding its input: the
// request when line is an object whose fields have their types, else a zero
// Request.
func lenient(line []byte) Request {
	root := gjson.ParseBytes(line)
	if !root.IsObject() {
		return Request{}
	}
	var req Request
	for k, dst := range map[string]*string{"event": &req.Event, "cwd": &req.Cwd, "config": &req.Config, "event_log": &req.EventLog} {
		v := root.Get(k)
		if v.Exists() && v.Type != gjson.String {
			return Request{}
		}
		*dst = v.Str
	}
	if id := root.Get("id"); id.Exists() {
		req.ID = json.RawMessage(id.Raw)
	}
	if in := root.Get("input"); in.Exists() {
		req.Input = json.RawMessage(in.Raw)
	}
	return req
}

func hello(o Options) Hello {
	h := Hello{Hello: "hook-loop", Version: o.Version, PID: os.Getpid()}
	if o.Adapter != nil {
		h.Harness = o.Adapter().Harness()
	}
	if exe, err := os.Executable(); err == nil {
		h.Binary = exe
		if fi, err := os.Stat(exe); err == nil {
			h.BinarySize, h.BinaryMtime = fi.Size(), fi.ModTime().UnixMilli()
		}
	}
	return h
}
