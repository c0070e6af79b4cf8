// Package hookrun runs one harness hook invocation: read stdin, decode it with the
// harness's adapter, load the loop, run the engine under the log's lock, and encode
// the decision. Every *-hook command is this package plus an Adapter.
package hookrun

import "github.com/hook-loop/hook-loop/loop"

// Adapter converts between one harness's hook JSON and the canonical model. It
// decodes and encodes; it never decides policy.
type Adapter interface {
	// Harness is the harness's short name: codex, claude, opencode, pi.
	Harness() string
	// Decode turns the hook's stdin into a canonical event. event is the value of
	// the --event flag ("" when absent; the adapter may then read it from the
	// payload). An error names the JSON path and what was expected.
	Decode(event string, input []byte) (loop.HookEvent, error)
	// Encode renders d as exactly what the harness honours for ev.
	Encode(ev loop.HookEvent, d loop.Decision) Output
}

// Output is what the hook process prints and returns.
type Output struct {
	Stdout []byte
	Stderr []byte
	Exit   int
}
