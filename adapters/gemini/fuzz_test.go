package gemini

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hook-loop/hook-loop/testkit/fuzzseed/adaptercheck"
)

// FuzzDecode feeds any bytes as any event to the Gemini CLI adapter: it never
// panics, its errors are one line, and every answer it encodes is valid JSON.
// Seeds are the recorded Gemini CLI payloads plus inline malformed ones.
func FuzzDecode(f *testing.F) {
	seeds := []string{``, `{}`, `[]`, `null`, `{"hook_event_name":1}`,
		`{"hook_event_name":"AfterTool","tool_name":"run_shell_command","tool_input":{"command":"x"},"tool_response":{"llmContent":"Output: a\nExit Code: x"}}`,
		`{"hook_event_name":"BeforeTool","tool_name":"write_file","tool_input":{"file_path":7}}`,
		`{"hook_event_name":"BeforeAgent","prompt":"[hook-loop] x"}`}
	files, _ := filepath.Glob(filepath.Join("testdata", "harness", "payloads", "*.json"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			seeds = append(seeds, string(b))
		}
	}
	for _, s := range seeds {
		for _, e := range append([]string{""}, NativeEvents...) {
			f.Add(e, []byte(s))
		}
	}
	a := New()
	f.Fuzz(func(t *testing.T, event string, input []byte) {
		adaptercheck.Check(t, a, event, input)
	})
}
