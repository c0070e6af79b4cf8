package overview

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/eventlog/follow"
	"github.com/hook-loop/hook-loop/project/regfile"
)

// Operator event types: what a person did from outside the harness. The engine
// reads them on a session's next hook.
const (
	OperatorApproved  = eventlog.TypeOperatorApproved
	OperatorRejected  = eventlog.TypeOperatorRejected
	OperatorPaused    = eventlog.TypeOperatorPaused
	OperatorResumed   = eventlog.TypeOperatorResumed
	OperatorCancelled = eventlog.TypeOperatorCancelled
)

// kindOf names the timeline kind of an event type; "" for events that are not
// shown (hook calls, tool results: the log has them).
func kindOf(typ string) string {
	switch typ {
	case eventlog.TypeStateTransitioned:
		return "transition"
	case eventlog.TypeTransitionRejected:
		return "rejected"
	case eventlog.TypeStopRefused:
		return "stop_refused"
	case eventlog.TypeEvidenceRegistered:
		return "evidence"
	case eventlog.TypeLoopOutcome:
		return "outcome"
	case "waiting_for_input":
		return "waiting"
	case "tool_blocked":
		return "blocked"
	case eventlog.TypeWouldBlock:
		return "would_block"
	case eventlog.TypeLoopDisarmed:
		return "lifecycle"
	}
	if strings.HasPrefix(typ, "operator.") {
		return "operator"
	}
	if strings.HasPrefix(typ, "lifecycle") || strings.HasPrefix(typ, "phase") {
		return "lifecycle"
	}
	return ""
}

// describe says what an event means, in one line a person reads, and the whole
// text when that line is a short form of it.
func describe(e *eventlog.Event) (string, string) {
	if e.EventType == eventlog.TypeStopRefused {
		msg, _ := e.Payload["message"].(string)
		if msg == "" {
			msg, _ = e.Payload["reason"].(string)
		}
		return fmt.Sprintf("stop refused (#%v)", e.Payload["stop_blocks"]), msg
	}
	return describeLine(e), ""
}

func describeLine(e *eventlog.Event) string {
	str := func(k string) string { return PayloadString(e.Payload, k) }
	switch e.EventType {
	case eventlog.TypeLoopStarted:
		s := "loop " + str("loop_id") + " started in " + str("initial_state")
		if h := str("harness"); h != "" {
			s += " (" + h + ")"
		}
		return s
	case eventlog.TypeSessionInitialized:
		return "session started in " + str("initial_state")
	case eventlog.TypeStateTransitioned:
		return str("from") + " → " + str("to") + " on " + str("event")
	case eventlog.TypeTransitionRejected:
		return str("event") + " refused in " + str("from") + ": " + str("reason")
	case eventlog.TypeEvidenceRegistered:
		s := "evidence"
		if k := str("kind"); k != "" {
			s += " (" + k + ")"
		}
		if c := str("command"); c != "" {
			s += ": $ " + c
		}
		if _, ok := e.Payload["exit_code"]; ok {
			s += " → exit " + str("exit_code")
		}
		return s
	case eventlog.TypeLoopOutcome:
		s := "outcome " + str("outcome") + " in " + str("final_state")
		if forced, _ := e.Payload["forced_by_harness"].(bool); forced {
			s += " (forced by the harness)"
		}
		return s
	case eventlog.TypeLoopDisarmed:
		return "not gated: " + str("reason")
	case "waiting_for_input":
		return "asks the person: " + str("question")
	case "tool_blocked":
		return "tool refused: " + str("tool_name") + " " + str("reason")
	case eventlog.TypeWouldBlock:
		return "would have refused (" + str("mode") + " mode) the " + str("kind") + ": " + str("reason")
	}
	if strings.HasPrefix(e.EventType, "operator.") {
		s := strings.TrimPrefix(e.EventType, "operator.") + " by " + e.Actor
		if r := str("reason"); r != "" {
			s += ": " + r
		}
		return s
	}
	for _, k := range []string{"reason", "message", "decision", "summary"} {
		if v := str(k); v != "" {
			return e.EventType + ": " + v
		}
	}
	return e.EventType
}

// PayloadString is payload value k as text: a string as is, "" when absent or
// null, anything else formatted.
func PayloadString(p map[string]any, k string) string {
	switch v := p[k].(type) {
	case string:
		return v
	case nil:
		return ""
	default:
		return fmt.Sprint(v)
	}
}

// readBackwards calls fn with the complete lines of path's first end bytes, last
// line first, reading at most limit bytes; fn returns false to stop. It reports
// whether it read back to the file's first line.
func readBackwards(path string, end, limit int64, fn func(line []byte) bool) (bool, error) {
	f, _, err := regfile.OpenNoFollow(path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	const chunk = 1 << 20
	stop := max(0, end-limit)
	pos := end
	var carry []byte // the start of a line whose beginning is in an earlier chunk
	buf := make([]byte, chunk)
	for pos > stop {
		n := min(int64(chunk), pos-stop)
		pos -= n
		if _, err := f.ReadAt(buf[:n], pos); err != nil && !errors.Is(err, io.EOF) {
			return false, err
		}
		data := append(buf[:n:n], carry...)
		for {
			i := bytes.LastIndexByte(data[:max(0, len(data)-1)], '\n')
			if i < 0 {
				break
			}
			line := bytes.TrimSuffix(data[i+1:], []byte("\n"))
			if len(line) > 0 && !fn(line) {
				return false, nil
			}
			data = data[:i+1]
		}
		carry = append([]byte(nil), data...)
	}
	if pos > 0 {
		return false, nil
	}
	if len(carry) > 0 && !fn(bytes.TrimSuffix(carry, []byte("\n"))) {
		return false, nil
	}
	return true, nil
}

// completeEnd is the offset just after the file's last newline: a line still
// being written is left to the follower, which waits for its end.
func completeEnd(path string) (int64, error) {
	f, _, err := regfile.OpenNoFollow(path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	end := fi.Size()
	buf := make([]byte, 64<<10)
	for end > 0 {
		n := min(int64(len(buf)), end)
		if _, err := f.ReadAt(buf[:n], end-n); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return end - n + int64(i) + 1, nil
		}
		end -= n
	}
	return 0, nil
}

// readForwards calls fn for each line of path's first end bytes that contains
// needle, first to last; fn returns false to stop.
func readForwards(path string, end int64, needle []byte, fn func(line []byte) bool) error {
	f, _, err := regfile.OpenNoFollow(path, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	const chunk = 4 << 20
	buf := make([]byte, 0, chunk)
	var pos int64
	for pos < end {
		n := min(int64(chunk)-int64(len(buf)), end-pos)
		if n <= 0 { // one line longer than a chunk: skip it
			buf = buf[:0]
			continue
		}
		read, err := f.ReadAt(buf[len(buf):len(buf)+int(n)], pos)
		if read == 0 && err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		pos += int64(read)
		data := buf[:len(buf)+read]
		last := bytes.LastIndexByte(data, '\n')
		if last < 0 {
			buf = data
			continue
		}
		whole := data[:last+1]
		for {
			i := bytes.Index(whole, needle)
			if i < 0 {
				break
			}
			s := bytes.LastIndexByte(whole[:i], '\n') + 1
			e := i + bytes.IndexByte(whole[i:], '\n')
			if !fn(whole[s:e]) {
				return nil
			}
			whole = whole[e+1:]
		}
		buf = append(buf[:0], data[last+1:]...)
	}
	return nil
}

// afterInterval waits one polling interval of fw.
func afterInterval(fw *follow.Follower) <-chan time.Time {
	d := fw.Interval
	if d <= 0 {
		d = follow.DefaultInterval
	}
	return time.After(d)
}
