package loop

import "context"

// Lifecycle points, in the order a loop meets them. The typed contexts live in
// sdk/hooks; these names are the wire method names.
const (
	PointLoopStart       = "loop_start"
	PointSessionStart    = "session_start"
	PointInputReceived   = "input_received"
	PointToolRequested   = "tool_requested"
	PointPhaseChanged    = "phase_changed"
	PointWaitingForInput = "waiting_for_input"
	PointLoopComplete    = "loop_complete"
)

// Lifecycle runs the user's lifecycle hooks. The engine calls Fire synchronously,
// before it acts on what the point decides; c is a pointer to the point's context
// type from sdk/hooks, whose decision fields Fire updates in place. The returned
// records (hooks.failed, hooks.decided, hooks.refused, ...) are appended to the log
// by the engine, in the session's current state.
type Lifecycle interface {
	Fire(ctx context.Context, point string, c any) []LifecycleRecord
}

// LifecycleRecord is an event the lifecycle runner wants logged.
type LifecycleRecord struct {
	Type    string
	Payload map[string]any
}
