// Package replay feeds a recorded trace of raw hook inputs through a loop file, so
// a user can edit a loop and test it against a real session without an agent.
package replay

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/hook"
	"github.com/hook-loop/hook-loop/loop"
	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/loop/session"
	"github.com/hook-loop/hook-loop/loop/sim"
)

// Step is one replayed event and what hook-loop decided.
type Step struct {
	N        int           `json:"n"`
	Harness  string        `json:"harness"`
	Event    string        `json:"event"`
	Session  string        `json:"session_id"`
	Detail   string        `json:"detail,omitempty"`
	Rules    []int         `json:"matched_rules"`
	Decision loop.Decision `json:"-"`
	Action   string        `json:"action"`
	Reason   string        `json:"reason,omitempty"`
	State    string        `json:"state"`
}

// Options configure a replay.
type Options struct {
	Spec     *dsl.Spec
	Adapters map[string]harness.Adapter // by harness name
	Harness  string                     // default harness for lines that name none
	LogPath  string                     // event log to write ("" = a fresh temp file); see CheckOwnLog
	Root     string                     // project root the trace's paths are judged against
	// Rebase maps the trace's recorded project directory to Root so that path
	// rules and protections see the same relative paths as in the recorded run.
	Rebase string
	// OwnedPaths are the harnesses' own files the agent may not write, as
	// for a real hook (adapters/registry/hooks.OwnedPaths); nil leaves the engine's list.
	OwnedPaths []string
}

// ReadTrace parses a trace file: one hook.TraceLine per line. Blank lines are
// skipped; a bad line is an error naming the file and line.
func ReadTrace(path string) ([]hook.TraceLine, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read trace: %w", err)
	}
	defer f.Close()
	return ParseTrace(path, f)
}

// ParseTrace is ReadTrace over a reader.
func ParseTrace(name string, r io.Reader) ([]hook.TraceLine, error) {
	var lines []hook.TraceLine
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), hook.MaxInput+4096)
	n := 0
	for sc.Scan() {
		n++
		b := strings.TrimSpace(sc.Text())
		if b == "" {
			continue
		}
		var l hook.TraceLine
		if err := json.Unmarshal([]byte(b), &l); err != nil {
			return nil, fmt.Errorf("%s:%d: not a trace line (expected {\"harness\",\"event\",\"input\"}): %v", name, n, err)
		}
		if len(l.Input) == 0 {
			return nil, fmt.Errorf("%s:%d: input: expected the hook's JSON input", name, n)
		}
		lines = append(lines, l)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return lines, nil
}

// Run replays lines in order, calling emit after each event.
func Run(ctx context.Context, o Options, lines []hook.TraceLine, emit func(Step)) (session.View, error) {
	logPath := o.LogPath
	if logPath == "" {
		dir, err := os.MkdirTemp("", "hook-loop-replay-")
		if err != nil {
			return session.View{}, err
		}
		logPath = filepath.Join(dir, "events.jsonl")
		defer RemoveTempLog(logPath)
	} else if err := CheckOwnLog(logPath); err != nil {
		return session.View{}, err
	}
	log := session.Open(logPath)
	eng := &engine.Engine{Spec: o.Spec, Root: o.Root, ConfigPath: o.Spec.Path, LogPath: logPath, OwnedPaths: o.OwnedPaths}
	var last string
	for i, l := range lines {
		h := l.Harness
		if h == "" {
			h = o.Harness
		}
		ad, ok := o.Adapters[h]
		if !ok {
			return session.View{}, fmt.Errorf("trace line %d: unknown harness %q", i+1, h)
		}
		input := []byte(l.Input)
		if o.Rebase != "" && o.Root != "" {
			input = []byte(strings.ReplaceAll(string(input), o.Rebase, o.Root))
		}
		ev, err := ad.Decode(l.Event, input)
		if err != nil {
			return session.View{}, fmt.Errorf("trace line %d: %w", i+1, err)
		}
		if ev.Harness == "" {
			ev.Harness = h
		}
		if ev.Result != nil && ev.Result.ExitCode == nil && l.ExitCode != nil {
			ev.Result.ExitCode = l.ExitCode
		}
		var d loop.Decision
		err = log.Update(func(tx session.Tx) error {
			var herr error
			d, herr = eng.Handle(ctx, tx, ev)
			return herr
		})
		if err != nil {
			return session.View{}, fmt.Errorf("trace line %d: %w", i+1, err)
		}
		last = engine.SessionKey(ev.SessionID)
		if emit != nil {
			emit(Step{N: i + 1, Harness: h, Event: ev.Name, Session: last, Detail: detail(ev, o.Root),
				Rules: d.MatchedRules, Decision: d, Action: string(d.Action), Reason: d.Reason, State: d.State})
		}
	}
	var s session.View
	err := log.View(func(tx session.Tx) error { s = tx.Session(last); return nil })
	return s, err
}

func detail(ev loop.HookEvent, root string) string {
	switch {
	case ev.Command != "":
		d := ev.ToolName + " " + quote(ev.Command)
		if ev.Result != nil {
			if ev.Result.ExitCode != nil {
				d += fmt.Sprintf(" exit %d", *ev.Result.ExitCode)
			} else {
				d += " exit ?"
			}
		}
		return d
	case ev.ToolName != "":
		d := ev.ToolName
		for i, p := range ev.TargetPaths {
			if rel, err := filepath.Rel(root, p); root != "" && err == nil && !strings.HasPrefix(rel, "..") {
				p = rel
			}
			sep := ", "
			if i == 0 {
				sep = " "
			}
			d += sep + p
		}
		return d
	case ev.Prompt != "":
		return quote(ev.Prompt)
	case ev.LastAssistantMessage != "":
		return quote(ev.LastAssistantMessage)
	}
	return ""
}

func quote(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return fmt.Sprintf("%q", s)
}

// Print writes a step as one readable line (and the reason's first line when the
// decision refused something).
func Print(w io.Writer, s Step) {
	rules := "-"
	if len(s.Rules) > 0 {
		parts := make([]string, len(s.Rules))
		for i, r := range s.Rules {
			parts[i] = fmt.Sprint(r)
		}
		rules = strings.Join(parts, ",")
	}
	fmt.Fprintf(w, "%3d  %-17s %-45s rules %-6s %-6s state %s\n", s.N, s.Event, s.Detail, rules, s.Action, s.State)
	if s.Action == string(loop.Block) && s.Reason != "" {
		first := strings.SplitN(s.Reason, "\n", 2)[0]
		fmt.Fprintf(w, "     reason: %s\n", first)
	}
}

// CheckOwnLog refuses a log that holds any session a simulation did not
// start: simulate and replay write only logs of their own, never one whose
// sessions a harness's hooks judge, where a simulated or replayed event would
// move a real session (a replay's sessions look like a harness's, so a
// replay's log is not written twice either). A missing or empty log is one's own.
func CheckOwnLog(path string) error {
	simulated := map[string]bool{}
	foreign := ""
	err := session.Open(path).Scan(nil, func(_ int, e eventlog.Event) error {
		if e.EventType == eventlog.TypeLoopStarted {
			if h, _ := e.Payload["harness"].(string); h == sim.Driver {
				simulated[e.SessionID] = true
				return nil
			}
		}
		if !simulated[e.SessionID] {
			foreign = e.SessionID
			return errForeign
		}
		return nil
	})
	if errors.Is(err, errForeign) {
		return fmt.Errorf("%s holds session %q, which no simulation started (a harness's, or a replay's): simulate and replay write only logs of their own; leave out --event-log for a temporary one", path, foreign)
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}

var errForeign = errors.New("a session no simulation started")

// RemoveTempLog removes a temporary log's folder and the key the event log
// made for it in the user's state directory.
func RemoveTempLog(logPath string) {
	if key, err := eventlog.KeyPath(logPath); err == nil {
		_ = os.Remove(key)
	}
	_ = os.RemoveAll(filepath.Dir(logPath))
}
