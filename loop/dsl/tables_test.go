package dsl

import (
	"slices"
	"testing"

	"github.com/hook-loop/hook-loop/loop"
)

// eventPhrase, mermaidReserved and carries were maps; these are their
// entries, so that the switches that replaced them drop none.
func TestLookupSwitchesKeepEveryEntry(t *testing.T) {
	for ev, want := range map[string]string{
		loop.EventSessionStart:      "the start of a session",
		loop.EventUserPromptSubmit:  "a prompt from the person",
		loop.EventPreToolUse:        "a tool request",
		loop.EventPermissionRequest: "a permission request",
		loop.EventPostToolUse:       "a finished tool call",
		loop.EventStop:              "your final message",
		loop.EventSubagentStop:      "a subagent's final message",
		loop.EventPreCompact:        "a compaction",
		loop.EventPostCompact:       "a compaction",
		loop.EventSessionEnd:        "the end of the session",
	} {
		if got, ok := eventPhrase(ev); !ok || got != want {
			t.Errorf("eventPhrase(%q) = %q, %v; want %q", ev, got, ok, want)
		}
	}
	if _, ok := eventPhrase("Nope"); ok {
		t.Error("eventPhrase knows an event it never knew")
	}
	for _, w := range []string{"state", "note", "class", "classDef", "direction", "end", "click", "style", "as", "left", "right", "of"} {
		if !mermaidReserved(w) {
			t.Errorf("mermaidReserved(%q) = false", w)
		}
	}
	if mermaidReserved("done") {
		t.Error(`mermaidReserved("done") = true`)
	}
	facts := []string{"tool_name", "command", "paths", "exit_code", "prompt", "last_message"}
	old := map[string][]string{
		loop.EventPreToolUse:        {"tool_name", "command", "paths"},
		loop.EventPermissionRequest: {"tool_name", "command", "paths"},
		loop.EventPostToolUse:       {"tool_name", "command", "paths", "exit_code"},
		loop.EventUserPromptSubmit:  {"prompt"},
		loop.EventStop:              {"last_message"},
		loop.EventSubagentStop:      {"last_message"},
	}
	for _, ev := range append(slices.Clone(loop.CanonicalEvents), "Nope") {
		for _, f := range facts {
			want := false
			for _, g := range old[ev] {
				want = want || g == f
			}
			if got := carries(ev, f); got != want {
				t.Errorf("carries(%q, %q) = %v, want %v", ev, f, got, want)
			}
		}
	}
}
