// Package eventlog is hook-loop's append-only JSONL event log: one JSON object per
// line with the fields the Python original wrote (docs/dsl-origin.md), an
// exclusive lock around every read-decide-append, an index beside the log that
// caches per-session views folded by a caller's Folder, recovery from torn
// lines, and a per-session hash chain. It stores, locks, indexes and replays;
// what a view means belongs to the Folder (the loop's is loop/session).
package eventlog

// SchemaVersion is written into every event, as the Python original did.
const SchemaVersion = 1

// Event is one line of the log. The first nine fields are the Python original's, so its
// readers keep working; the rest are additions.
type Event struct {
	SchemaVersion int            `json:"schema_version"`
	EventID       string         `json:"event_id"`
	SessionID     string         `json:"session_id"`
	RunID         string         `json:"run_id"`
	Timestamp     string         `json:"timestamp"`
	State         string         `json:"state"`
	EventType     string         `json:"event_type"`
	Actor         string         `json:"actor"`
	Payload       map[string]any `json:"payload"`
	// PrevHash is the hex SHA-256 of the previous line (bytes, without the newline)
	// of the same session; "" for a session's first event.
	PrevHash string `json:"prev_hash,omitempty"`
}

// Event types with a meaning for state recovery and summaries.
const (
	TypeSessionInitialized = "session_initialized" // payload.initial_state
	TypeStateTransitioned  = "state_transitioned"  // payload.from/event/to
	TypeTransitionRejected = "transition_rejected"
	TypeEvidenceRegistered = "evidence_registered"
	TypeHookFired          = "hook_fired"
	TypeStopRefused        = "stop_contract_failed" // the Python original's name for a refused stop
	TypeLoopOutcome        = "loop_outcome"         // payload.outcome: completed|stopped|capped
	TypeLoopStarted        = "loop_started"
	TypeLoopDisarmed       = "loop_disarmed" // payload.reason: the session is not gated
)
