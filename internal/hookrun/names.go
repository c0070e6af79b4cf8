package hookrun

// EventNamer is implemented by adapters whose native event names are not the
// canonical ones (opencode's tool.execute.before, pi's tool_call). When the
// input cannot be decoded, the --event value is all hookrun knows about the
// event; mapping it keeps a fail_closed loop refusing a broken stop or tool
// request in those harnesses too, not only where native and canonical agree.
type EventNamer interface {
	CanonicalEvent(native string) (string, bool)
}

// canonicalEvent is the canonical name of the native event, or native itself.
func canonicalEvent(a Adapter, native string) string {
	if n, ok := a.(EventNamer); ok && native != "" {
		if c, ok := n.CanonicalEvent(native); ok {
			return c
		}
	}
	return native
}
