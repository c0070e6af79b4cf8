package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/eventlog"
)

func TestPayloadSummary(t *testing.T) {
	cases := []struct {
		typ  string
		p    map[string]any
		want string
	}{
		{eventlog.TypeStateTransitioned, map[string]any{"from": "a", "to": "b", "event": "go"}, "a → b (go)"},
		{eventlog.TypeTransitionRejected, map[string]any{"from": "a", "event": "go", "reason": "guard x\nnot met"}, "a ✗ go “guard x not met”"},
		{eventlog.TypeStopRefused, map[string]any{"stop_blocks": float64(2), "messages": []any{"keep going"}}, "#2 “keep going”"},
		{eventlog.TypeLoopOutcome, map[string]any{"outcome": "forced", "final_state": "building", "forced_by_harness": true}, "forced in building (forced by the harness)"},
		{eventlog.TypeEvidenceRegistered, map[string]any{"command": "go test ./...", "exit_code": float64(1)}, "$ go test ./... exit 1"},
		{"tool_result", map[string]any{"command": "pytest", "exit_code": nil}, "$ pytest exit ?"},
		{"custom", map[string]any{"b": "x", "a": true, "c": float64(3), "d": "more", "n": map[string]any{}}, "a=true b=x c=3 …"},
		{"custom", map[string]any{}, ""},
	}
	for _, c := range cases {
		e := eventlog.Event{EventType: c.typ, Payload: c.p}
		if got := payloadSummary(&e); got != c.want {
			t.Errorf("%s %v → %q, want %q", c.typ, c.p, got, c.want)
		}
	}
}

func TestLogVerifyNamesTamperedAndLegacyLines(t *testing.T) {
	t.Setenv(eventlog.StateDirEnv, t.TempDir())
	path := filepath.Join(t.TempDir(), ".hook-loop", "events.jsonl")
	os.MkdirAll(filepath.Dir(path), 0o755)
	// One line from before keying, then hook-loop's own, then a forged one.
	legacy := `{"schema_version":1,"event_id":"e1","session_id":"s1","run_id":"","timestamp":"","state":"a","event_type":"hook_fired","actor":"","payload":{}}`
	os.WriteFile(path, []byte(legacy+"\n"), 0o644)
	l := eventlog.Open(path, nil)
	if err := l.Update(func(tx *eventlog.Tx) error {
		_, err := tx.Append(eventlog.Event{SessionID: "s1", EventType: eventlog.TypeHookFired, State: "a"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	o := &LogOptions{IO: &IOStreams{Out: &out, ErrOut: &errOut}, eventLog: path}
	if err := runLogVerify(o); err != nil {
		t.Fatalf("intact log: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "1 legacy unkeyed lines before line 2") || !strings.Contains(out.String(), "ok:") {
		t.Fatalf("intact log:\n%s", out.String())
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"session_id":"s1","event_type":"state_transitioned","payload":{"to":"done"}}` + "\n")
	f.Close()
	out.Reset()
	err := runLogVerify(o)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 1 || !strings.Contains(out.String(), "tampered: line 3 (session s1)") {
		t.Fatalf("forged line: %v\n%s", err, out.String())
	}
	// A forged checkpoint line belongs to no session: named as the log's.
	f, _ = os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"hook_loop_checkpoint":1,"header":{"offset":0},"sessions":[],"mac":"` + strings.Repeat("0", 64) + `"}` + "\n")
	f.Close()
	out.Reset()
	if err := runLogVerify(o); err == nil || !strings.Contains(out.String(), "tampered: line 4: checkpoint MAC does not match the line: forged or edited\n") {
		t.Fatalf("forged checkpoint: %v\n%s", err, out.String())
	}
}
