package opencode

import "github.com/hook-loop/hook-loop/internal/hookrun"

var _ hookrun.EventNamer = Adapter{}

// CanonicalEvent implements hookrun.EventNamer: a fail_closed loop must know that
// an undecodable tool.execute.before is a tool request.
func (Adapter) CanonicalEvent(native string) (string, bool) { return Canonical(native) }
