package engine

import "context"

// Lifecycle runs the user's lifecycle hooks. The engine calls Fire synchronously,
// before it acts on what the point decides; point is one of sdk/hooks' Point*
// names (the one list of them, since plugins see it too) and c is a pointer to
// the point's context type from sdk/hooks, whose decision fields Fire updates in
// place. The returned records (hooks.failed, hooks.decided, hooks.refused, ...)
// are appended to the log by the engine, in the session's current state.
type Lifecycle interface {
	Fire(ctx context.Context, point string, c any) []LifecycleRecord
}

// LifecycleRecord is an event the lifecycle runner wants logged.
type LifecycleRecord struct {
	Type    string
	Payload map[string]any
}
