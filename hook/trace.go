package hook

import (
	"encoding/json"
	"fmt"
	"github.com/hook-loop/hook-loop/project/regfile"
	"os"
	"path/filepath"
	"time"

	"github.com/hook-loop/hook-loop/loop"
)

// TraceLine is one line of .hook-loop/trace.jsonl, as `--record` writes it and
// `hook-loop replay` reads it.
type TraceLine struct {
	Time     string          `json:"time"`
	Harness  string          `json:"harness"`
	Event    string          `json:"event,omitempty"`
	Input    json.RawMessage `json:"input"`
	ExitCode *int            `json:"exit_code,omitempty"`
}

// recordTrace appends the raw input to trace.jsonl in dir, the log's folder,
// so that `hook-loop replay` can feed a real session through an edited loop.
func recordTrace(dir, harnessName, event string, input []byte, ev *loop.HookEvent) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("record trace: %w", err)
	}
	compact := json.RawMessage(input)
	if !json.Valid(input) {
		b, _ := json.Marshal(string(input))
		compact = b
	}
	// The exit code is kept beside the input because some harnesses (Codex) only
	// reveal it through files that are gone by the time a trace is replayed.
	var exit *int
	if ev != nil && ev.Result != nil {
		exit = ev.Result.ExitCode
	}
	line, err := json.Marshal(TraceLine{
		Time: time.Now().UTC().Format(time.RFC3339Nano), Harness: harnessName,
		Event: event, Input: compact, ExitCode: exit,
	})
	if err != nil {
		return fmt.Errorf("record trace: %w", err)
	}
	// Opened without waiting and only as a regular file: a FIFO put in its
	// place must not hold the hook past the harness's timeout.
	f, _, err := regfile.Open(filepath.Join(dir, "trace.jsonl"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("record trace: %w", err)
	}
	defer f.Close()
	// One write of one line: O_APPEND keeps concurrent hooks' lines whole.
	if _, err := f.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("record trace: %w", err)
	}
	return nil
}
