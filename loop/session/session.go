// Package session is the loop's reducer: it folds a session's events, in log
// order, into the View that decisions, `hook-loop status` and replay read — the
// state, the evidence count, the run of refused stops, the outcome. The event
// log stores, locks and indexes; it keeps these views incrementally through
// Folder, without knowing what they mean.
package session

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/hook-loop/hook-loop/eventlog"
)

// View is what the loop knows about a session (or, for project scope, the whole
// log) without re-reading it. Fold folds one event into it; it can always be
// rebuilt by folding the log from the start.
type View struct {
	// State follows the DSL's recovery rule: the last event decides —
	// session_initialized → payload.initial_state, state_transitioned → payload.to,
	// anything else → the event's own state field. "" when there are no events.
	State          string `json:"state"`
	Events         int    `json:"events"`
	Evidence       int    `json:"evidence"`        // evidence_registered events
	StopBlocks     int    `json:"stop_blocks"`     // refused stops since the last transition
	Transitions    int    `json:"transitions"`     // applied transitions
	Outcome        string `json:"outcome"`         // last loop_outcome payload.outcome
	OutcomeForced  bool   `json:"outcome_forced"`  // loop_outcome payload.forced_by_harness
	Started        bool   `json:"started"`         // a loop_started event exists
	Disarmed       string `json:"disarmed"`        // loop_disarmed payload.reason ("" = armed)
	SessionRefused bool   `json:"session_refused"` // loop_disarmed by a session_start refusal: the session is to end
	// Pinned is the hash of the loop definition the session is judged by
	// (loop_pinned, then loop_reloaded); "" before its first event.
	Pinned string `json:"pinned,omitempty"`
	// LoopFile is what hook-loop last noted of the loop file while it differed
	// from the pin: "missing", or the hash it holds instead. A reload clears it.
	LoopFile string `json:"loop_file,omitempty"`
	// Tampered is the first log_tampered reason ("line 12: ..."): lines of this
	// session's log were not written by hook-loop.
	Tampered string `json:"tampered,omitempty"`
	// Held is why the session's tool calls and stop are refused after a lifecycle
	// failure (lifecycle_held payload.reason); a reload clears it.
	Held string `json:"held,omitempty"`
	// HooksLoadFailed: the lifecycle declaration failed to load and the person
	// was told once (hooks.load_failed).
	HooksLoadFailed bool `json:"hooks_load_failed,omitempty"`
	// Paused is set by a person's pause until their resume (or a reset);
	// PauseReason is what they gave.
	Paused      bool   `json:"paused"`
	PauseReason string `json:"pause_reason"`
	// Cancelled is set by a person's cancel (the reason, or "cancelled"): the
	// session is no longer gated, until a reset.
	Cancelled string `json:"cancelled"`
	// WouldBlocks counts what a warn- or audit-mode loop let through;
	// LastWouldBlock is the last one's reason.
	WouldBlocks    int    `json:"would_blocks"`
	LastWouldBlock string `json:"last_would_block"`
	LastType       string `json:"last_type"`       // event_type of the last event
	FirstTimestamp string `json:"first_timestamp"` // of the first event
	LastTimestamp  string `json:"last_timestamp"`  // of the last event
	// LastRefusal is RefusalKey of the last refused stop's message while
	// StopBlocks > 0: a harness that carries a refusal to the model as a new
	// prompt (Copilot CLI, Qwen Code) is going on, not starting a new turn.
	LastRefusal string `json:"last_refusal,omitempty"`
}

// payloadKeys are the payload keys Fold reads.
var payloadKeys = []string{"initial_state", "to", "outcome", "forced_by_harness", "reason", "session_refused", "hash", "message"}

// Event types the loop's pinning, tamper and lifecycle records use.
const (
	TypeLoopPinned      = "loop_pinned"       // payload.hash/path/loop_id: the session's loop
	TypeLoopReloaded    = "loop_reloaded"     // payload.hash: a person re-pinned the session
	TypeLoopFileChanged = "loop_file_changed" // payload.hash: the file holds another loop now
	TypeLoopFileMissing = "loop_file_missing" // the file is gone or unreadable
	TypeLogTampered     = "log_tampered"      // payload.reason/line: a line not honoured
	TypeLifecycleHeld   = "lifecycle_held"    // payload.reason: tool calls and stop refused
	TypeHooksLoadFailed = "hooks.load_failed" // the lifecycle declaration did not load
)

// RefusalKey is what View.LastRefusal keeps of a refusal's text: a short
// hash (the text itself would grow the index), ignoring surrounding space.
func RefusalKey(msg string) string {
	msg = strings.TrimSpace(msg)
	if msg == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(msg))
	return hex.EncodeToString(sum[:8])
}

// Fold folds one event into v.
func (v *View) Fold(e *eventlog.Event) {
	v.Events++
	switch e.EventType {
	case eventlog.TypeSessionInitialized:
		v.State = payloadString(e, "initial_state")
	case eventlog.TypeStateTransitioned:
		v.State = payloadString(e, "to")
		v.Transitions++
		v.StopBlocks, v.LastRefusal = 0, ""
	default:
		v.State = e.State
	}
	switch e.EventType {
	case eventlog.TypeEvidenceRegistered:
		v.Evidence++
	case eventlog.TypeStopRefused:
		v.StopBlocks++
		msg, _ := e.Payload["message"].(string)
		v.LastRefusal = RefusalKey(msg)
	case eventlog.TypeLoopOutcome:
		v.Outcome, _ = e.Payload["outcome"].(string)
		v.OutcomeForced, _ = e.Payload["forced_by_harness"].(bool)
		v.StopBlocks, v.LastRefusal = 0, ""
	case eventlog.TypeLoopStarted:
		v.Started = true
	case eventlog.TypeLoopDisarmed:
		v.Disarmed, _ = e.Payload["reason"].(string)
		if v.Disarmed == "" {
			v.Disarmed = "disarmed"
		}
		v.SessionRefused, _ = e.Payload["session_refused"].(bool)
	case TypeLoopPinned:
		v.Pinned, _ = e.Payload["hash"].(string)
	case TypeLoopReloaded:
		v.Pinned, _ = e.Payload["hash"].(string)
		v.LoopFile, v.Held = "", ""
	case TypeLoopFileChanged:
		v.LoopFile, _ = e.Payload["hash"].(string)
		if v.LoopFile == v.Pinned {
			v.LoopFile = "" // the file holds the pinned loop again
		}
	case TypeLoopFileMissing:
		v.LoopFile = "missing"
	case TypeLogTampered:
		if v.Tampered == "" {
			v.Tampered, _ = e.Payload["reason"].(string)
			if v.Tampered == "" {
				v.Tampered = "tampered"
			}
		}
	case TypeLifecycleHeld:
		v.Held, _ = e.Payload["reason"].(string)
		if v.Held == "" {
			v.Held = "a required lifecycle hook failed"
		}
	case TypeHooksLoadFailed:
		v.HooksLoadFailed = true
	case eventlog.TypeOperatorPaused:
		v.Paused = true
		v.PauseReason, _ = e.Payload["reason"].(string)
	case eventlog.TypeOperatorResumed:
		v.Paused, v.PauseReason = false, ""
	case eventlog.TypeOperatorCancelled:
		v.Cancelled, _ = e.Payload["reason"].(string)
		if v.Cancelled == "" {
			v.Cancelled = "cancelled"
		}
	case eventlog.TypeOperatorReset:
		// Back to the start: the person's earlier controls and the outcome no
		// longer hold.
		v.Paused, v.PauseReason, v.Cancelled, v.Outcome, v.OutcomeForced, v.StopBlocks, v.LastRefusal = false, "", "", "", false, 0, ""
	case eventlog.TypeWouldBlock:
		v.WouldBlocks++
		v.LastWouldBlock, _ = e.Payload["reason"].(string)
	}
	if v.FirstTimestamp == "" {
		v.FirstTimestamp = e.Timestamp
	}
	v.LastTimestamp = e.Timestamp
	v.LastType = e.EventType
}

// payloadString is the payload's non-empty string at key, else the event's state.
func payloadString(e *eventlog.Event, key string) string {
	if s, ok := e.Payload[key].(string); ok && s != "" {
		return s
	}
	return e.State
}

// Folder makes Views for an event log (see eventlog.Folder).
type Folder struct{}

// Name names the fold; change the version when View's meaning changes, so
// indexes folded the old way are folded again.
func (Folder) Name() string { return "session.View/3" }

// NewView returns an empty *View.
func (Folder) NewView() eventlog.View { return &View{} }

// PayloadKeys are the payload keys View.Fold reads.
func (Folder) PayloadKeys() []string { return payloadKeys }

// Reader is the view access a decision needs; Tx implements it, and so will any
// other store of the log.
type Reader interface {
	Session(id string) View
	Project() View
}

// Scoped is the view that drives a loop's decisions for session id: the
// session's own, except that a project-scoped loop shares its state and evidence
// across every session of the log (refused stops, the outcome and whether the
// loop is armed stay the session's).
func Scoped(r Reader, id string, project bool) View {
	v := r.Session(id)
	if project {
		p := r.Project()
		v.State, v.Evidence = p.State, p.Evidence
	}
	return v
}

// Tx is an event log transaction seen through Views.
type Tx struct{ *eventlog.Tx }

// Session is the view of session id, events appended in this transaction
// included; the zero View when the log has none.
func (tx Tx) Session(id string) View {
	if v, ok := tx.Tx.View(id).(*View); ok {
		return *v
	}
	return View{}
}

// Project is the fold of every event in the log.
func (tx Tx) Project() View {
	if v, ok := tx.Tx.ProjectView().(*View); ok {
		return *v
	}
	return View{}
}

// Log is an event log that keeps Views.
type Log struct{ *eventlog.Log }

// Open returns the event log at path, keeping a View per session and for the
// project (see eventlog.Open).
func Open(path string, opts ...eventlog.Option) *Log {
	return &Log{eventlog.Open(path, Folder{}, opts...)}
}

// Update runs fn in an exclusive transaction (see eventlog.Log.Update).
func (l *Log) Update(fn func(tx Tx) error) error {
	return l.Log.Update(func(tx *eventlog.Tx) error { return fn(Tx{tx}) })
}

// View runs fn in a read-only transaction (see eventlog.Log.View).
func (l *Log) View(fn func(tx Tx) error) error {
	return l.Log.View(func(tx *eventlog.Tx) error { return fn(Tx{tx}) })
}
