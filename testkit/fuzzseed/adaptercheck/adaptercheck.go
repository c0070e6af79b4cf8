// Package adaptercheck is the property every adapter's FuzzDecode checks, apart
// from fuzzseed so that packages below loop (internal/shell) can use fuzzseed.
package adaptercheck

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/loop"
	"github.com/hook-loop/hook-loop/testkit/fuzzseed"
)

// decisions are the answers every adapter must be able to encode for any event
// it decoded, and for the bare event hookrun encodes when decoding failed.
var decisions = []loop.Decision{
	{Action: loop.Allow},
	{Action: loop.Allow, SystemMessage: "hook-loop: note\nsecond line"},
	{Action: loop.Block, Reason: "refused: \"quoted\" <html> \u2028"},
	{Action: loop.Block},
	{Action: loop.Steer, Context: "context for the model"},
	{Action: "", Reason: "zero action"},
}

// Check is the property every adapter's FuzzDecode checks: Decode never
// panics; an error is one line (the hook prints it as one line on stderr); a
// decoded event has a canonical or native name; Encode never panics and prints
// either nothing or one JSON document, for a decoded event and for the bare
// event hookrun answers with when decoding failed.
func Check(t testing.TB, a harness.Adapter, event string, input []byte) {
	t.Helper()
	ev, err := a.Decode(event, input)
	if err != nil {
		if msg := err.Error(); strings.ContainsAny(msg, "\n\r") {
			t.Fatalf("Decode(%q) error is not one line: %q", event, msg)
		}
		ev = loop.HookEvent{Harness: a.Harness(), Name: event}
	} else if ev.Name == "" {
		t.Fatalf("Decode(%q) succeeded with no event name: %+v", event, ev)
	}
	for _, d := range decisions {
		out := a.Encode(ev, d)
		if s := bytes.TrimSpace(out.Stdout); len(s) > 0 && !json.Valid(s) {
			t.Fatalf("Encode(%s, %s) printed invalid JSON: %q", ev.Name, d.Action, out.Stdout)
		}
		if out.Exit < 0 || out.Exit > 2 {
			t.Fatalf("Encode(%s, %s) exit %d", ev.Name, d.Action, out.Exit)
		}
	}
}

// AddPayloads seeds f with every captured payload of harness, once with event
// as the --event value each seed names (from nameKey in the payload, e.g.
// "hook_event_name") and once with no --event. It logs why when there are none.
func AddPayloads(f *testing.F, harness, nameKey string, extract func([]byte) [][]byte) {
	ps, err := fuzzseed.Payloads(harness)
	if err != nil {
		f.Logf("%s fuzz: %v", harness, err)
		return
	}
	for _, p := range ps {
		inputs := [][]byte{p.Data}
		if extract != nil {
			inputs = append(inputs, extract(p.Data)...)
		}
		for _, in := range inputs {
			var probe map[string]any
			_ = json.Unmarshal(in, &probe)
			name, _ := probe[nameKey].(string)
			f.Add(name, in)
			if name != "" {
				f.Add("", in)
			}
		}
	}
}
