package copilot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/testkit/fuzzseed/adaptercheck"
)

// FuzzDecode feeds any bytes as any event to the Copilot CLI adapter: it
// never panics, its errors are one line, and every answer it encodes is valid
// JSON. Seeds are the recorded payloads plus inline malformed ones.
func FuzzDecode(f *testing.F) {
	seeds := []string{``, `{}`, `[]`, `null`, `{"toolName":1}`, `{"toolArgs":"{\"path\":7}","toolName":"create"}`,
		`{"toolName":"bash","toolResult":{"textResultForLlm":"<shellId: 0 completed with exit code 99999999999999999999>"}}`,
		strings.Repeat("[", 100_000)}
	files, _ := filepath.Glob(filepath.Join("testdata", "payloads", "*.json"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			seeds = append(seeds, string(b))
		}
	}
	for _, s := range seeds {
		for _, e := range append([]string{"", "errorOccurred"}, NativeEvents...) {
			f.Add(e, []byte(s))
		}
	}
	a := New()
	f.Fuzz(func(t *testing.T, event string, input []byte) {
		adaptercheck.Check(t, a, event, input)
	})
}
