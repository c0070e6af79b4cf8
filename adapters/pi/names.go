package pi

import "github.com/hook-loop/hook-loop/adapters/harness"

var _ harness.EventNamer = Adapter{}

// CanonicalEvent implements harness.EventNamer: a fail_closed loop must know that
// an undecodable tool_call is a tool request and message_end a stop.
func (Adapter) CanonicalEvent(native string) (string, bool) {
	c, ok := nativeToCanonical.Lookup(native)
	return c, ok
}
