// Package benchgen writes large, realistic event logs for benchmarks: several
// sessions interleaved, each with a valid hash chain, in the shapes the engine
// itself appends. Writing a million lines through eventlog.Tx.Append would spend
// most of its time on per-call bookkeeping; this writes lines directly and then
// lets eventlog build its index once, so what is timed afterwards is the steady
// state a hook meets (an index covering the whole log).
package benchgen

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/eventlog/logline"
	"github.com/hook-loop/hook-loop/loop/session"
)

// Options describe one generated log.
type Options struct {
	// Events is the number of lines to write.
	Events int
	// Sessions is how many sessions the events are spread over, round robin
	// (at least 1).
	Sessions int
	// Focus, when set, is one of the sessions (the one a benchmark's payload
	// names), so the hook under test recovers a session with history.
	Focus string
	// Start is the first event's timestamp (zero: a fixed date, so logs are
	// reproducible).
	Start time.Time
}

// sessionState is one session's chain head and position in its script.
type sessionState struct {
	id    string
	n     int
	last  string
	state string
}

// The per-session script: a loop that starts, plans, executes, and then spends
// most of its events on tool calls, evidence and refused stops, as a real
// session does. States are plan_execute's so the gallery loop reads them.
var prologue = []struct{ typ, from, to string }{
	{eventlog.TypeLoopStarted, "", "backlog"},
	{eventlog.TypeStateTransitioned, "backlog", "planning"},
	{eventlog.TypeStateTransitioned, "planning", "executing"},
}

// Write generates the log at path (replacing it) and builds its index. It
// returns the number of bytes written.
func Write(path string, o Options) (int64, error) {
	if o.Sessions < 1 {
		o.Sessions = 1
	}
	if o.Start.IsZero() {
		o.Start = time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return 0, err
	}
	for _, p := range []string{path, path + ".idx", path + ".lock"} {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return 0, err
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	sessions := make([]*sessionState, o.Sessions)
	for i := range sessions {
		id := fmt.Sprintf("bench-%04d-%08x", i, uint32(i)*2654435761)
		if i == 0 && o.Focus != "" {
			id = o.Focus
		}
		sessions[i] = &sessionState{id: id}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	var written int64
	for i := 0; i < o.Events; i++ {
		s := sessions[i%len(sessions)]
		e := next(s, o.Start.Add(time.Duration(i)*time.Millisecond), i)
		buf.Reset()
		if err := enc.Encode(&e); err != nil {
			f.Close()
			return 0, err
		}
		line := buf.Bytes()
		s.last = logline.Hash(line[:len(line)-1])
		s.n++
		n, err := w.Write(line)
		written += int64(n)
		if err != nil {
			f.Close()
			return 0, err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return 0, err
	}
	if err := f.Close(); err != nil {
		return 0, err
	}
	return written, BuildIndex(path)
}

// BuildIndex folds the log once so its index covers every line; a copied log
// needs this too, because the index records the file's identity. Unlike a
// hook's, this fold has no budget: a bench log is folded whole before timing.
func BuildIndex(path string) error {
	return session.Open(path, eventlog.WithFoldBudget(-1)).Update(func(session.Tx) error { return nil })
}

// next is session s's next event, the i-th line of the log.
func next(s *sessionState, at time.Time, i int) eventlog.Event {
	e := eventlog.Event{
		SchemaVersion: eventlog.SchemaVersion,
		EventID:       fmt.Sprintf("00000000-0000-4000-8000-%012x", i),
		SessionID:     s.id,
		RunID:         fmt.Sprintf("turn-%s-%d", s.id, s.n/20),
		Timestamp:     at.Format(eventlog.TimestampLayout),
		Actor:         "hook-loop",
		PrevHash:      s.last,
	}
	if s.n < len(prologue) {
		p := prologue[s.n]
		e.EventType = p.typ
		if p.typ == eventlog.TypeLoopStarted {
			e.State = p.to
			e.Payload = map[string]any{"loop_id": "plan_execute", "harness": "codex", "initial_state": p.to, "scope": "session"}
		} else {
			e.State = p.from
			e.Actor = "driver"
			e.Payload = map[string]any{"from": p.from, "event": "kickoff", "to": p.to}
		}
		s.state = p.to
		return e
	}
	e.State = s.state
	switch s.n % 10 {
	case 3, 5, 7:
		e.EventType = eventlog.TypeHookFired
		e.Payload = map[string]any{
			"platform": "codex", "hook_event_name": "PreToolUse", "native_event": "PreToolUse",
			"tool_name": "Bash", "verdict": "allow", "allowed": true, "messages": []string{}, "matched_rules": []int{},
		}
	case 4, 6, 8:
		e.EventType = eventlog.TypeHookFired
		e.Payload = map[string]any{
			"platform": "codex", "hook_event_name": "PostToolUse", "native_event": "PostToolUse",
			"tool_name": "Bash", "verdict": "allow", "allowed": true, "messages": []string{}, "matched_rules": []int{5},
		}
	case 9:
		e.EventType = eventlog.TypeEvidenceRegistered
		e.Actor = "codex"
		e.Payload = map[string]any{"kind": "verification", "command": "go test ./...", "exit_code": 0}
	case 0:
		e.EventType = eventlog.TypeStopRefused
		msg := "hook-loop: the loop plan_execute is in state executing; it moves on with step_done: a Bash command matching go test that exits 0."
		e.Payload = map[string]any{"message": msg, "messages": []string{msg}, "stop_blocks": 1, "stop_hook_active": false}
	default:
		e.EventType = eventlog.TypeHookFired
		e.Payload = map[string]any{
			"platform": "codex", "hook_event_name": "Stop", "native_event": "Stop",
			"tool_name": nil, "verdict": "block", "allowed": false, "messages": []string{"refused"}, "matched_rules": []int{},
		}
	}
	return e
}
