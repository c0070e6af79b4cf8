package cmd

import (
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
