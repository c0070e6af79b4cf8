package claude

import (
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/testkit/fuzzseed"
	"github.com/hook-loop/hook-loop/testkit/fuzzseed/adaptercheck"
)

// FuzzDecode feeds any bytes as any event to the Claude Code adapter: it never
// panics, its errors are one line, and every answer it encodes is valid JSON.
// Seeds are the real Claude Code payloads plus inline malformed ones.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		``, ` `, `{}`, `[]`, `null`, `{"hook_event_name":1}`, `{"hook_event_name":"Stop"`,
		`{"hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"x"},"error":"Exit code 3\nboom"}`,
		`{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":7}}`,
		`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"cat > a <<EOF\nx\nEOF"}}`,
		strings.Repeat("[", 100_000), strings.Repeat(`{"a":`, 10_000),
	} {
		for _, e := range append([]string{""}, NativeEvents...) {
			f.Add(e, []byte(s))
		}
	}
	f.Add("NoSuchEvent", []byte(`{"hook_event_name":"NoSuchEvent"}`))
	adaptercheck.AddPayloads(f, "claude", "hook_event_name", func(b []byte) [][]byte {
		return fuzzseed.Objects(b, "hook_event_name", "session_id")
	})
	a := New()
	f.Fuzz(func(t *testing.T, event string, input []byte) {
		adaptercheck.Check(t, a, event, input)
	})
}
