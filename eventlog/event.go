// Package eventlog is hook-loop's append-only JSONL event log: one JSON object per
// line with the prototype's fields, an exclusive lock around every
// read-decide-append, an index of per-session summaries beside the log, recovery
// from torn lines, and a per-session hash chain.
//
// # Only hook-loop's own lines count
//
// The agent a log judges can usually write the log, so every line hook-loop
// appends carries a MAC: the line ends in `,"mac":"<hex>"}`, where hex is
// HMAC-SHA256(key, the line's bytes before that suffix). The MAC covers
// prev_hash (the SHA-256 of the session's previous line, as before keying), so
// the chain is keyed too. The key is one per log (per project), created on the
// first append under StateDir()/keys (file 0600, directory 0700), never in the
// project. A line is honoured — folded into its session's summary — only when:
//
//   - it has a MAC, the MAC is right, and its prev_hash is the session's last
//     honoured line (no forged, edited, replayed or reordered lines); or
//   - it has no MAC and lies in the legacy part of the log: the bytes the log
//     held when its key was created, pinned by length and SHA-256 in the key
//     file (logs from before keying load; a rewritten or replaced log's
//     unkeyed lines do not), or anywhere while the log has no key yet.
//
// Any other event line is skipped: the session keeps the state of its last
// honoured line, Tx.Tampered reports the line, Warnings says so, and Verify
// lists it. The index (a cache of summaries) carries a MAC of its body under
// the same key, so an edited index is rebuilt from the log, not believed.
//
// Every lock wait is bounded (DefaultLockTimeout, HOOK_LOOP_LOCK_TIMEOUT,
// WithLockTimeout) and ends in a *LockTimeoutError (ErrLockTimeout). The log,
// index and lock are opened without following symbolic links, must be regular
// files, and their directory must not be a symbolic link.
package eventlog

// SchemaVersion is written into every event, as the prototype did.
const SchemaVersion = 1

// Event is one line of the log. The first nine fields are the prototype's, so its
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
	// MAC is the line's HMAC-SHA256 under the log's key (package doc); Append
	// writes it last, and it is "" in lines from before keying.
	MAC string `json:"mac,omitempty"`
}

// Event types with a meaning for state recovery and summaries.
const (
	TypeSessionInitialized = "session_initialized" // payload.initial_state
	TypeStateTransitioned  = "state_transitioned"  // payload.from/event/to
	TypeTransitionRejected = "transition_rejected"
	TypeEvidenceRegistered = "evidence_registered"
	TypeHookFired          = "hook_fired"
	TypeStopRefused        = "stop_contract_failed" // the prototype's name for a refused stop
	TypeLoopOutcome        = "loop_outcome"         // payload.outcome: completed|stopped|capped
	TypeLoopStarted        = "loop_started"
	TypeLoopDisarmed       = "loop_disarmed" // payload.reason: the session is not gated
)

// Summary is what the engine needs to know about a session (or, for project scope,
// the whole log) without re-reading it. Apply folds one event into it; the index
// stores it; it can always be rebuilt by folding the log from the start.
type Summary struct {
	// State follows the prototype's recover_current_state: the last event decides —
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
	LastHash       string `json:"last_hash"`       // hash of the session's last line (chain head)
	LastType       string `json:"last_type"`       // event_type of the last event
	FirstTimestamp string `json:"first_timestamp"` // of the first event
	LastTimestamp  string `json:"last_timestamp"`  // of the last event
}

// Apply folds one event (and the hash of its line) into s.
func (s *Summary) Apply(e *Event, lineHash string) {
	s.Events++
	switch e.EventType {
	case TypeSessionInitialized:
		if v, ok := e.Payload["initial_state"].(string); ok && v != "" {
			s.State = v
		} else {
			s.State = e.State
		}
	case TypeStateTransitioned:
		if v, ok := e.Payload["to"].(string); ok && v != "" {
			s.State = v
		} else {
			s.State = e.State
		}
		s.Transitions++
		s.StopBlocks = 0
	default:
		s.State = e.State
	}
	switch e.EventType {
	case TypeEvidenceRegistered:
		s.Evidence++
	case TypeStopRefused:
		s.StopBlocks++
	case TypeLoopOutcome:
		s.Outcome, _ = e.Payload["outcome"].(string)
		s.OutcomeForced, _ = e.Payload["forced_by_harness"].(bool)
		s.StopBlocks = 0
	case TypeLoopStarted:
		s.Started = true
	case TypeLoopDisarmed:
		s.Disarmed, _ = e.Payload["reason"].(string)
		if s.Disarmed == "" {
			s.Disarmed = "disarmed"
		}
	}
	if s.FirstTimestamp == "" {
		s.FirstTimestamp = e.Timestamp
	}
	s.LastTimestamp = e.Timestamp
	s.LastType = e.EventType
	s.LastHash = lineHash
}

// Clone returns a copy (Summary holds no references, but callers should not rely
// on that staying true).
func (s Summary) Clone() Summary { return s }
