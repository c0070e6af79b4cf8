package opencode

import (
	"sort"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/testkit/fuzzseed/adaptercheck"
)

// FuzzDecode feeds any bytes as any event to the opencode adapter: it never
// panics, its errors are one line, and every answer it encodes is valid JSON.
// Seeds are the real opencode 1.18 plugin captures plus inline malformed ones.
func FuzzDecode(f *testing.F) {
	events := []string{""}
	for _, e := range nativeToCanonical {
		events = append(events, e[0])
	}
	sort.Strings(events)
	for _, s := range []string{
		``, ` `, `{}`, `[]`, `null`, `{"hook":1}`, `{"hook":"tool.execute.before"`,
		`{"hook":"tool.execute.before","input":{"tool":"bash","sessionID":"s"},"output":{"args":{"command":"rm -rf /"}}}`,
		`{"hook":"tool.execute.after","input":{"tool":"write","sessionID":"s"},"output":{"metadata":{"exit":"x"}}}`,
		`{"hook":"tool.execute.before","input":{"tool":"apply_patch"},"output":{"args":{"patchText":7}}}`,
		strings.Repeat("[", 100_000), strings.Repeat(`{"a":`, 10_000),
	} {
		for _, e := range events {
			f.Add(e, []byte(s))
		}
	}
	f.Add("no.such.event", []byte(`{"hook":"no.such.event"}`))
	adaptercheck.AddPayloads(f, "opencode", "hook", nil)
	a := New()
	f.Fuzz(func(t *testing.T, event string, input []byte) {
		adaptercheck.Check(t, a, event, input)
	})
}
