package pi

import "github.com/hook-loop/hook-loop/internal/hookrun"

var _ hookrun.EventNamer = Adapter{}

// CanonicalEvent implements hookrun.EventNamer: a fail_closed loop must know that
// an undecodable tool_call is a tool request and message_end a stop.
func (Adapter) CanonicalEvent(native string) (string, bool) {
	c, ok := nativeToCanonical[native]
	return c, ok
}
