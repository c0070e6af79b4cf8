package codex

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkDecodePostToolUseRollout measures the exit-code lookup in a large
// rollout: only the tail is read, so the cost must not grow with the session.
func BenchmarkDecodePostToolUseRollout(b *testing.B) {
	src, err := os.ReadFile(filepath.Join("testdata", "rollout-exec.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	big := filepath.Join(b.TempDir(), "rollout.jsonl")
	pad := strings.Repeat(`{"type":"event_msg","payload":{"type":"token_count","info":{"total":1}}}`+"\n", 200000)
	os.WriteFile(big, append([]byte(pad), src...), 0o644)
	in := []byte(`{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"make test"},"tool_response":"ok","tool_use_id":"call_mock_2","transcript_path":"` + big + `"}`)
	a := New()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ev, err := a.Decode("", in)
		if err != nil || ev.Result.ExitCode == nil || *ev.Result.ExitCode != 3 {
			b.Fatalf("%v %v", err, ev.Result)
		}
	}
}
