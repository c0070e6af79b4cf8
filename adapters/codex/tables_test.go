package codex

import "testing"

// contextEvent and blockEvent were maps; these are their entries.
func TestEventSwitchesKeepEveryEntry(t *testing.T) {
	for _, e := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "SubagentStart"} {
		if !contextEvent(e) {
			t.Errorf("contextEvent(%q) = false", e)
		}
	}
	for _, e := range []string{"UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SubagentStop"} {
		if !blockEvent(e) {
			t.Errorf("blockEvent(%q) = false", e)
		}
	}
	if contextEvent("Stop") || blockEvent("SessionStart") {
		t.Error("a switch answers true for an event its map did not hold")
	}
}
