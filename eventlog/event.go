// Package eventlog is hook-loop's append-only JSONL event log: one JSON object per
// line with the fields the Python original wrote (docs/dsl-origin.md), an
// exclusive lock around every read-decide-append, an index beside the log that
// caches per-session views folded by a caller's Folder, recovery from torn
// lines, and a per-session hash chain. It stores, locks, indexes and replays;
// what a view means belongs to the Folder (the loop's is loop/session).
//
// # Only hook-loop's own lines count
//
// The agent a log judges can usually write the log, so every line hook-loop
// appends carries a MAC: the line ends in `,"mac":"<hex>"}`, where hex is
// HMAC-SHA256(key, the line's bytes before that suffix). The MAC covers
// prev_hash (the SHA-256 of the session's previous line, as before keying), so
// the chain is keyed too. The key is one per log (per project), created on the
// first append under StateDir()/keys (file 0600, directory 0700), never in the
// project. A line is honoured — folded into its session's view — only when:
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
// lists it. The index (a cache of views) carries a MAC of its body under
// the same key, so an edited index is rebuilt from the log, not believed.
// Checkpoint lines (checkpoint.go) — the index's snapshot written into the log
// every few MiB under the same key — let a rebuild fold only the lines after
// the newest valid one; they are not events, and every reader skips them.
//
// Every lock wait is bounded (DefaultLockTimeout, HOOK_LOOP_LOCK_TIMEOUT,
// WithLockTimeout) and ends in a *LockTimeoutError (ErrLockTimeout). The log,
// index and lock are opened without following symbolic links, must be regular
// files, and their directory must not be a symbolic link.
package eventlog

import "github.com/hook-loop/hook-loop/eventlog/logline"

// SchemaVersion is written into every event, as the Python original did.
const SchemaVersion = 1

// Event is one line of the log (package logline).
type Event = logline.Event

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
	// TypeWouldBlock is what a loop in warn or audit mode records instead of
	// refusing: payload.kind (tool|stop) and payload.reason.
	TypeWouldBlock = "would_block"
)

// Operator event types: what a person did from outside the harness (actor
// "person", payload.reason optional). The engine reads them on the session's
// next hook.
const (
	TypeOperatorApproved  = "operator.approved"
	TypeOperatorRejected  = "operator.rejected"
	TypeOperatorPaused    = "operator.paused"
	TypeOperatorResumed   = "operator.resumed"
	TypeOperatorCancelled = "operator.cancelled"
	TypeOperatorAdvanced  = "operator.advanced"
	TypeOperatorReset     = "operator.reset" // the event's state is the loop's initial state
)
