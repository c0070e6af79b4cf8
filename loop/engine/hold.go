package engine

import (
	"fmt"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/loop/session"
)

// A gate that cannot trust what it knows refuses what it guards rather than
// letting the agent through: a lifecycle hook that failed where it was required,
// a declaration that did not load (under fail_closed: which checks were lost is
// unknowable), lines of the log hook-loop did not write (under fail_closed).

// tamperer is the part of a Tx that reports lines not honoured; session.Tx has
// it, a store without keyed lines need not.
type tamperer interface {
	Tampered(id string) []eventlog.TamperNote
}

// noteTampering records, once, the lines of the session the log did not honour
// in this run (TamperNote.New): the log finds a forged line once, when it folds it.
func (h *handling) noteTampering() error {
	t, ok := h.tx.(tamperer)
	if !ok {
		return nil
	}
	var lines []any
	var reasons []any
	first := ""
	for _, n := range t.Tampered(h.sid) {
		if !n.New {
			continue
		}
		if first == "" {
			first = n.String()
		}
		lines = append(lines, n.Line)
		reasons = append(reasons, n.Reason)
	}
	if len(lines) == 0 {
		return nil
	}
	h.system = append(h.system, "hook-loop: the event log has lines hook-loop did not write ("+first+"); they are not honoured — see `hook-loop log verify`")
	return h.append(session.TypeLogTampered, "hook-loop", map[string]any{
		"reason": first, "line": lines[0], "lines": lines, "reasons": reasons,
	})
}

// noteHooksLoadFailed records, once per session, that the lifecycle declaration
// did not load, and tells the person.
func (h *handling) noteHooksLoadFailed() error {
	rec := h.e.HooksLoadFailed
	if rec == nil || h.tx.Session(h.sid).HooksLoadFailed {
		return nil
	}
	what := "the lifecycle hooks did not load, so none of them run: "
	if isPartial(rec) {
		what = "some lifecycle hooks did not load, so they do not run (a required one refuses where it would): "
	}
	h.system = append(h.system, "hook-loop: "+what+fmt.Sprint(rec.Payload["why"]))
	_, err := h.tx.Append(eventlog.Event{SessionID: h.sid, RunID: h.runID, State: h.state,
		EventType: rec.Type, Actor: "lifecycle", Payload: rec.Payload})
	return err
}

// toolHold is why the session's tool calls are refused whatever the policy says
// ("" = they are judged as usual).
func (h *handling) toolHold() string {
	if s := h.tx.Session(h.sid); s.Held != "" {
		return heldReason(s.Held, h.sid)
	}
	// A partial record (some entries loaded) holds nothing: the entries that
	// did not load are known, and a required one refuses where it would run.
	if rec := h.e.HooksLoadFailed; rec != nil && h.e.Spec.Definition.FailClosed && !isPartial(rec) {
		return fmt.Sprintf("hook-loop: the lifecycle hooks declaration did not load (%v); this loop is fail_closed and a gate cannot know which checks it lost, so tool calls and stops are refused until it loads.", h.e.HooksLoadFailed.Payload["why"])
	}
	return ""
}

// stopHold is why the session's stop is refused whatever its state.
func (h *handling) stopHold() string {
	if r := h.toolHold(); r != "" {
		return r
	}
	if !h.e.Spec.Definition.FailClosed {
		return ""
	}
	if t := h.tx.Session(h.sid).Tampered; t != "" {
		return fmt.Sprintf("hook-loop: the event log has lines hook-loop did not write (%s); this loop is fail_closed, so the stop is refused. The person can inspect it with `hook-loop log verify`.", t)
	}
	return ""
}

func heldReason(held, sid string) string {
	return fmt.Sprintf("hook-loop: %s. Tool calls and stops are refused; after fixing the hook the person runs `hook-loop reload --session %s`.", held, sid)
}

// hold records that a lifecycle failure at point holds the session: its tool
// calls and stop are refused with reason until a person reloads it.
func (h *handling) hold(point, hook, reason string) error {
	h.held = true
	h.system = append(h.system, heldReason(reason, h.sid))
	return h.append(session.TypeLifecycleHeld, "hook-loop", map[string]any{"point": point, "hook": hook, "reason": reason})
}

// isPartial reports whether a hooks.load_failed record is of some entries
// only, the rest of the declaration having loaded.
func isPartial(rec *LifecycleRecord) bool {
	partial, _ := rec.Payload["partial"].(bool)
	return partial
}
