package codex

import (
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/testkit/fuzzseed"
	"github.com/hook-loop/hook-loop/testkit/fuzzseed/adaptercheck"
)

// FuzzDecode feeds any bytes as any event to the Codex adapter: it never
// panics, its errors are one line, and every answer it encodes is valid JSON.
// Seeds are the real Codex 0.169 payloads (events and the hook inputs recorded
// in the experiments) plus inline malformed ones.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		``, ` `, `{}`, `[]`, `null`, `"x"`, `{"hook_event_name":1}`, `{"hook_event_name":"Stop"`,
		`{"hook_event_name":"PostToolUse","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Add File: .git/x\n+x\n*** End Patch"}}`,
		`{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":"echo","tool_response":{"output":1}}`,
		`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":["bash","-lc","rm -rf /"]}}`,
		`{"thread_id":"t","turn_id":"u","tool_output":"x","input":"y","user_prompt":"z"}`,
		strings.Repeat("[", 100_000), strings.Repeat(`{"a":`, 10_000),
	} {
		for _, e := range append([]string{""}, NativeEvents...) {
			f.Add(e, []byte(s))
		}
	}
	f.Add("NoSuchEvent", []byte(`{"hook_event_name":"NoSuchEvent"}`))
	adaptercheck.AddPayloads(f, "codex", "hook_event_name", func(b []byte) [][]byte {
		return fuzzseed.Objects(b, "hook_event_name", "session_id")
	})
	// The rollout lookup reads transcript_path from disk: keep it from waiting.
	a := &Adapter{RolloutTail: 64 << 10}
	f.Fuzz(func(t *testing.T, event string, input []byte) {
		adaptercheck.Check(t, a, event, input)
	})
}
