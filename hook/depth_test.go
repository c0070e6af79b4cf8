package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/adapters/claude"
	"github.com/hook-loop/hook-loop/adapters/copilot"
	"github.com/hook-loop/hook-loop/adapters/harness"
)

// 8 MiB of "[" is under the stdin cap; before the nesting check it crashed the
// claude and pi hooks with a fatal stack overflow inside their JSON reader.
func TestReadInputRefusesDeepNesting(t *testing.T) {
	deep := bytes.Repeat([]byte("["), MaxInput-1)
	_, err := readInput(bytes.NewReader(deep))
	if err == nil || !strings.Contains(err.Error(), "levels deep") {
		t.Fatalf("readInput(8 MiB of [) = %v", err)
	}
}

// TestDeepToolCallRefused: a tool call whose input nests too deep to read
// (the agent's arguments do) is refused even in a loop that is not
// fail_closed; a stop too, as every failure refuses one.
func TestDeepToolCallRefused(t *testing.T) {
	dir := twoStateProject(t)
	deep := strings.Repeat("[", harness.MaxNesting+5) + strings.Repeat("]", harness.MaxNesting+5)
	in := `{"session_id":"s","cwd":"` + dir + `","hook_event_name":"PreToolUse","tool_name":"mcp__fs__write_file","tool_input":{"path":"hook-loop.json","opts":` + deep + `}}`
	out := New(Deps{}).Run(context.Background(), Request{Adapter: claude.New(), Flags: Flags{Event: "PreToolUse", ConfigPath: filepath.Join(dir, "hook-loop.json")},
		Stdin: strings.NewReader(in), Cwd: dir})
	if !strings.Contains(string(out.Stdout), `"permissionDecision":"deny"`) {
		t.Fatalf("deep PreToolUse answered %q (stderr %q), want a deny", out.Stdout, out.Stderr)
	}
}

// TestDeepToolResultRecorded: what a tool returned may nest deeper than a
// tool's input may (an MCP server's JSON, 200 levels here): a PostToolUse
// carrying it is read and logged, not failed as input too deep to read,
// which lost the event (the stdin's cap was the tool input's 64 levels).
func TestDeepToolResultRecorded(t *testing.T) {
	dir := twoStateProject(t)
	deep := strings.Repeat(`{"a":`, 200) + `1` + strings.Repeat("}", 200)
	in := `{"session_id":"s","cwd":"` + dir + `","hook_event_name":"PostToolUse","tool_name":"mcp__db__query","tool_input":{"sql":"select 1"},"tool_response":` + deep + `}`
	out := New(Deps{}).Run(context.Background(), Request{Adapter: claude.New(), Flags: Flags{Event: "PostToolUse", ConfigPath: filepath.Join(dir, "hook-loop.json")},
		Stdin: strings.NewReader(in), Cwd: dir})
	if out.Exit != 0 || len(out.Stderr) != 0 {
		t.Fatalf("deep PostToolUse: exit %d, stdout %q, stderr %q", out.Exit, out.Stdout, out.Stderr)
	}
	log, err := os.ReadFile(filepath.Join(dir, ".hook-loop", "events.jsonl"))
	if err != nil || !strings.Contains(string(log), "mcp__db__query") {
		t.Fatalf("the event was not logged (%v): %.300s", err, log)
	}
}

// TestUnreadableArgsTextRefused: Copilot CLI arguments sent as JSON text
// nested past what the JSON reader takes (inside the string, where the
// stdin nesting check never looks) are refused in a loop that is not
// fail_closed: the agent wrote them, and read another way they name another
// file than the one Copilot CLI writes.
func TestUnreadableArgsTextRefused(t *testing.T) {
	dir := twoStateProject(t)
	deep := strings.Repeat("[", 10005) + strings.Repeat("]", 10005)
	args, _ := json.Marshal(`{"path":"a.txt","file_text":"x","pad":` + deep + `,"path":"hook-loop.json"}`)
	in := `{"sessionId":"s","timestamp":1,"cwd":"` + dir + `","toolName":"create","toolArgs":` + string(args) + `}`
	out := New(Deps{}).Run(context.Background(), Request{Adapter: copilot.New(), Flags: Flags{Event: "preToolUse", ConfigPath: filepath.Join(dir, "hook-loop.json")},
		Stdin: strings.NewReader(in), Cwd: dir})
	if !strings.Contains(string(out.Stdout), `"permissionDecision":"deny"`) {
		t.Fatalf("preToolUse answered %q (stderr %q), want a deny", out.Stdout, out.Stderr)
	}
}

// twoStateProject is a project folder whose loop goes from a to done.
func twoStateProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	loopJSON := `{"loop": {"id": "x", "initial_state": "a", "states": ["a", "done"], "events": ["go"], "terminal_states": ["done"],
		"transitions": [{"from": "a", "event": "go", "to": "done"}]}}`
	if err := os.WriteFile(filepath.Join(dir, "hook-loop.json"), []byte(loopJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}
