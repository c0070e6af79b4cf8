package opencode

import "github.com/hook-loop/hook-loop/adapters/harness"

var _ harness.EventNamer = Adapter{}

// CanonicalEvent implements harness.EventNamer: a fail_closed loop must know that
// an undecodable tool.execute.before is a tool request.
func (Adapter) CanonicalEvent(native string) (string, bool) { return Canonical(native) }
