// Package harness is the hook path's contract between hook-loop and one
// coding-agent harness (Codex CLI, Claude Code, opencode, pi): the Adapter that
// converts its hook JSON to and from the canonical model, and Hooks, what a
// <name>-hook command needs of the harness (its adapter, events, hook spec and
// owned files). It is a leaf that imports only the canonical model and the
// standard library, so the lean hook binary can link it; installing and
// checking a harness is adapters/setup's.
package harness

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/hook-loop/hook-loop/loop"
)

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

// EventNamer is implemented by adapters whose native event names are not the
// canonical ones (opencode's tool.execute.before, pi's tool_call). When the
// input cannot be decoded, the --event value is all the hook knows about the
// event; mapping it keeps a fail_closed loop refusing a broken stop or tool
// request in those harnesses too, not only where native and canonical agree.
type EventNamer interface {
	CanonicalEvent(native string) (string, bool)
}

// CanonicalEvent is the canonical name of a's native event, or native itself.
func CanonicalEvent(a Adapter, native string) string {
	if n, ok := a.(EventNamer); ok && native != "" {
		if c, ok := n.CanonicalEvent(native); ok {
			return c
		}
	}
	return native
}

// ShapeError is tool input an adapter cannot read for its shape (arguments
// sent as JSON text nested past what the JSON reader takes): the agent
// writes that input, so the hook refuses such a call whatever fail_closed
// says, as it does one whose stdin nests too deep.
type ShapeError struct{ Err error }

func (e *ShapeError) Error() string { return e.Err.Error() }
func (e *ShapeError) Unwrap() error { return e.Err }

// InputError names the hook whose input could not be decoded, once: the
// adapter's error says where in the JSON and what was expected, this says whose
// input it was ("codex Stop hook input: $: invalid JSON, ..."). event is the
// --event value, "" when absent.
func InputError(name, event string, err error) error {
	if event == "" {
		return fmt.Errorf("%s hook input: %w", name, err)
	}
	return fmt.Errorf("%s %s hook input: %w", name, event, err)
}

// JSONOutput is v printed as the one JSON line a hook answers with, exit 0.
// Reasons quote shell commands: "&&" and "<" stay readable in logs.
func JSONOutput(v any, harness string) Output {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only strings are marshalled; this cannot fail, but an answer must
		// still be an answer.
		return Output{Stderr: []byte("hook-loop: encode " + harness + " output: " + err.Error() + "\n")}
	}
	return Output{Stdout: buf.Bytes()}
}

// JoinMessages joins two messages for the person, each once.
func JoinMessages(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "" || a == b:
		return a
	}
	return a + "\n" + b
}
