package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/adapters/registry"
	"github.com/hook-loop/hook-loop/cli/cmdutil"
	"github.com/hook-loop/hook-loop/version"
)

// The serve command answers a pi request as pi-hook would, with the per-request
// loop file, after its hello line; a bad --harness is one clear line.
func TestServeCommand(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "hook-loop.json")
	if err := os.WriteFile(config, []byte(`{"loop": {"id": "t", "initial_state": "a", "states": ["a", "done"], "events": ["go"], "transitions": [{"from": "a", "event": "go", "to": "done"}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	req, _ := json.Marshal(map[string]any{"id": 1, "event": "tool_call", "cwd": dir, "config": config,
		"input": map[string]any{"event": "tool_call", "session_id": "s", "cwd": dir, "payload": map[string]any{"toolName": "bash", "toolCallId": "c", "input": map[string]any{"command": "ls"}}}})
	var out, errOut bytes.Buffer
	app := NewApp(cmdutil.New(&IOStreams{In: bytes.NewReader(append(req, '\n')), Out: &out, ErrOut: &errOut}, version.Version), registry.All())
	if err := app.RunContext(context.Background(), []string{"hook-loop", "serve", "--stdio", "--harness", "pi", "--hooks-config", filepath.Join(dir, "none.json")}); err != nil {
		t.Fatalf("serve: %v (%s)", err, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"hello":"hook-loop"`) || !strings.Contains(lines[0], `"harness":"pi"`) {
		t.Fatalf("output %q", out.String())
	}
	var a struct {
		ID     int
		Stdout string
		Exit   int
	}
	if err := json.Unmarshal([]byte(lines[1]), &a); err != nil || a.ID != 1 || a.Exit != 0 || !strings.Contains(a.Stdout, `"action":"allow"`) || !strings.Contains(a.Stdout, "lifecycle hooks did not load") {
		t.Fatalf("answer %q: %v", lines[1], err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".hook-loop", "events.jsonl")); err != nil {
		t.Fatalf("the request's loop did not log beside it: %v", err)
	}

	err := NewApp(cmdutil.New(&IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, version.Version), registry.All()).RunContext(context.Background(), []string{"hook-loop", "serve", "--stdio", "--harness", "nosuch"})
	if e, ok := err.(*ExitError); !ok || e.Code != 2 || !strings.Contains(e.Message, "expected one of codex, opencode, pi, claude") {
		t.Fatalf("bad harness: %v", err)
	}
}
