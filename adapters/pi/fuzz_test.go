package pi

import (
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/testkit/fuzzseed/adaptercheck"
)

// FuzzDecode feeds any bytes as any event to the pi adapter: it never panics,
// its errors are one line, and every answer it encodes is valid JSON. Seeds are
// the real pi 0.73 extension captures plus inline malformed ones.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		``, ` `, `{}`, `[]`, `null`, `{"event":1}`, `{"event":"tool_call"`,
		`{"event":"tool_call","session_id":"s","cwd":"/p","payload":{"toolName":"bash","input":{"command":"rm -rf /"}}}`,
		`{"event":"tool_result","session_id":"s","cwd":"/p","payload":{"toolName":"bash","isError":true,"content":[{"type":"text","text":"x\nCommand exited with code 3"}]}}`,
		`{"event":"tool_call","session_id":"s","cwd":"relative","payload":{}}`,
		strings.Repeat("[", 100_000), strings.Repeat(`{"a":`, 10_000),
	} {
		for _, e := range append([]string{""}, NativeEvents...) {
			f.Add(e, []byte(s))
		}
	}
	f.Add("no_such_event", []byte(`{"event":"no_such_event"}`))
	adaptercheck.AddPayloads(f, "pi", "event", nil)
	a := New()
	f.Fuzz(func(t *testing.T, event string, input []byte) {
		adaptercheck.Check(t, a, event, input)
	})
}
