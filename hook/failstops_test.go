//go:build unix

package hook_test

import (
	"crypto/sha256"
	"encoding/hex"
	"github.com/hook-loop/hook-loop/eventlog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hook-loop/hook-loop/hook"
)

// breakLog swaps the project's log for a FIFO, as an agent could: every hook
// then fails to open it. The returned func puts the log back.
func breakLog(t *testing.T, root string) (restore func()) {
	t.Helper()
	logPath := filepath.Join(root, ".hook-loop", "events.jsonl")
	saved, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(logPath); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(logPath, 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	return func() {
		t.Helper()
		os.Remove(logPath)
		if err := os.WriteFile(logPath, saved, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Stops refused because hook-loop failed count toward the cap outside the
// project, so a harness without a cap of its own (Codex) is not refused
// forever: at the cap the stop is let through, the person is told loudly,
// and the log records it once it works again.
func TestFailedStopsGiveWayAtTheCapAndTheLogSaysSo(t *testing.T) {
	isolate(t)
	root := project(t, "")
	run(t, root, root, "UserPromptSubmit", `{"session":"s","prompt":"go"}`, false)
	restore := breakLog(t, root)
	for i := 1; i < 8; i++ {
		out := run(t, root, root, "Stop", `{"session":"s"}`, false)
		if !strings.HasPrefix(string(out.Stdout), "block:") || !strings.Contains(string(out.Stdout), "not a regular file") {
			t.Fatalf("stop %d with the log broken: %q", i, out.Stdout)
		}
	}
	// The agent's tools reach the project, not the count: a new loop file with
	// a lower cap does not shorten it.
	os.WriteFile(filepath.Join(root, "hook-loop.json"), []byte(strings.Replace(string(mustRead(t, filepath.Join(root, "hook-loop.json"))), `"initial_state"`, `"max_stop_blocks": 1, "initial_state"`, 1)), 0o644)
	out := run(t, root, root, "Stop", `{"session":"s"}`, false)
	if !strings.HasPrefix(string(out.Stdout), "allow:") || !strings.Contains(string(out.Stderr), "THE GATE GAVE WAY: 8 stops") {
		t.Fatalf("8th stop with the log broken: %q / %q", out.Stdout, out.Stderr)
	}
	restore()
	run(t, root, root, "UserPromptSubmit", `{"session":"s","prompt":"again"}`, false)
	if n := count(logTypes(t, root), hook.TypeGateGaveWay); n != 1 {
		t.Fatalf("%d %s records in the log, want 1: %v", n, hook.TypeGateGaveWay, logTypes(t, root))
	}
	run(t, root, root, "UserPromptSubmit", `{"session":"s","prompt":"and again"}`, false)
	if n := count(logTypes(t, root), hook.TypeGateGaveWay); n != 1 {
		t.Fatalf("the record was written again: %d", n)
	}
	// The run of failures ended: the next failure counts from one.
	restore = breakLog(t, root)
	defer restore()
	if out := run(t, root, root, "Stop", `{"session":"s"}`, false); !strings.HasPrefix(string(out.Stdout), "block:") {
		t.Fatalf("first failed stop after the log worked again: %q", out.Stdout)
	}
}

// max_stop_blocks: 0 keeps refusing, failures included.
func TestFailedStopsNeverGiveWayUnderAZeroCap(t *testing.T) {
	isolate(t)
	root := project(t, `, "max_stop_blocks": 0`)
	run(t, root, root, "UserPromptSubmit", `{"session":"s","prompt":"go"}`, false)
	restore := breakLog(t, root)
	defer restore()
	for i := 1; i <= 12; i++ {
		if out := run(t, root, root, "Stop", `{"session":"s"}`, false); !strings.HasPrefix(string(out.Stdout), "block:") {
			t.Fatalf("stop %d under max_stop_blocks 0: %q / %q", i, out.Stdout, out.Stderr)
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The record of a gate that gave way carries the loop's state: in a
// project-scoped loop, the project's, never the session's own, which the
// fold would take as the loop's and so move the shared loop back.
func TestGateGaveWayRecordKeepsTheProjectState(t *testing.T) {
	isolate(t)
	root := project(t, `, "scope": "project"`)
	run(t, root, root, "UserPromptSubmit", `{"session":"s1","prompt":"go"}`, false)
	restore := breakLog(t, root)
	for i := 0; i < 8; i++ {
		run(t, root, root, "Stop", `{"session":"s1"}`, false)
	}
	restore()
	// Another session moves the project's loop to done; then s1's next event
	// writes its gate_gave_way record.
	run(t, root, root, "PostToolUse", `{"session":"s2","command":"make","exit":0}`, false)
	run(t, root, root, "UserPromptSubmit", `{"session":"s1","prompt":"again"}`, false)
	if n := count(logTypes(t, root), hook.TypeGateGaveWay); n != 1 {
		t.Fatalf("%d %s records, want 1", n, hook.TypeGateGaveWay)
	}
	if out := run(t, root, root, "Stop", `{"session":"s2"}`, false); strings.HasPrefix(string(out.Stdout), "block:") {
		t.Fatalf("the project's loop went back from done: %q", out.Stdout)
	}
}

// A failed-stop record that cannot be read is removed, never a failure of
// every later event: that would let a fail-open loop's tool calls through
// unchecked.
func TestBrokenFailedStopRecordDoesNotOpenToolCalls(t *testing.T) {
	isolate(t)
	root := project(t, "")
	run(t, root, root, "UserPromptSubmit", `{"session":"s1","prompt":"go"}`, false)
	sum := sha256.Sum256([]byte(root + "\x00s1"))
	dir := filepath.Join(os.Getenv(eventlog.StateDirEnv), "failed-stops")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, hex.EncodeToString(sum[:16])+".json"), []byte("not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := run(t, root, root, "PreToolUse", `{"session":"s1","command":"echo {} > hook-loop.json"}`, false)
	if !strings.HasPrefix(string(out.Stdout), "block:") {
		t.Fatalf("a write to the loop file with a broken failed-stop record: %q / %q", out.Stdout, out.Stderr)
	}
}
