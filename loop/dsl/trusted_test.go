package dsl_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/hook-loop/hook-loop/gallery"
	"github.com/hook-loop/hook-loop/loop/dsl"
)

// TestParseTrustedMatchesParse: a hook judges a pinned session by ParseTrusted,
// validate/simulate by Parse; on every loop we ship or must load, the two give
// the same Spec but for the simulation ParseTrusted skips, and the same
// matches once its patterns compile on first use.
func TestParseTrustedMatchesParse(t *testing.T) {
	docs := map[string][]byte{}
	for _, name := range gallery.Names() {
		b, err := gallery.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		docs["gallery:"+name] = b
	}
	dir, files := dsl.ReferenceFiles(t)
	for _, rel := range files {
		b, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		docs["reference:"+rel] = b
	}
	docs["inline"] = []byte(`{"loop": {"id": "x", "initial_state": "a", "states": ["a", "done"], "events": ["go"],
		"transitions": [{"from": "a", "event": "go", "to": "done"}],
		"policies": {"a": {"deny_command_match": "(?i)rm -rf", "allow_path_match": "PLAN\\.md$", "deny_tools": ["Write"]}}},
		"codex": {"event_map": [{"codex_event": "PostToolUse", "when": {"tool_name": "Bash", "command_match": "^go test"}, "emit": "go"},
			{"codex_event": "UserPromptSubmit", "when": {"prompt_match": "(?i)start", "prompt_not_match": "later"}, "emit": "go"},
			{"codex_event": "Stop", "when": {"last_message_match": "DONE"}, "emit": "go"}]}}`)
	for name, data := range docs {
		t.Run(name, func(t *testing.T) {
			full, _, err := dsl.Parse(name, data)
			if err != nil {
				t.Skipf("not a valid loop (%v): never pinned", err)
			}
			trusted, err := dsl.ParseTrusted(name, data)
			if err != nil {
				t.Fatalf("ParseTrusted: %v", err)
			}
			full.Simulation = dsl.Simulation{}
			a, err := json.Marshal(full)
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(trusted)
			if err != nil {
				t.Fatal(err)
			}
			if string(a) != string(b) {
				t.Fatalf("specs differ:\nParse:        %s\nParseTrusted: %s", a, b)
			}
			for i, r := range trusted.EventMap {
				for _, p := range []*dsl.Pattern{r.When.CommandMatch, r.When.PromptMatch, r.When.PromptNotMatch, r.When.LastMessageMatch, r.When.PathMatch} {
					if p != nil && p.Regexp().String() != p.String() {
						t.Fatalf("rule %d: pattern %q compiled as %q", i, p.String(), p.Regexp().String())
					}
				}
			}
		})
	}
}

// TestParseTrustedInlineMatches: lazily compiled patterns match like eager ones.
func TestParseTrustedInlineMatches(t *testing.T) {
	data := []byte(`{"loop": {"id": "x", "initial_state": "a", "states": ["a", "done"], "events": ["go"],
		"transitions": [{"from": "a", "event": "go", "to": "done"}],
		"policies": {"a": {"deny_command_match": "(?i)rm -rf"}}},
		"codex": {"event_map": [{"codex_event": "PostToolUse", "when": {"tool_name": "Bash", "command_match": "^go test"}, "emit": "go"}]}}`)
	spec, err := dsl.ParseTrusted("x.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if !spec.EventMap[0].When.CommandMatch.MatchString("go test ./...") || spec.EventMap[0].When.CommandMatch.MatchString("make") {
		t.Fatal("command_match does not match like ^go test")
	}
	if !spec.Definition.Policies["a"].DenyCommandMatch.MatchString("RM -RF /") {
		t.Fatal("deny_command_match does not match case-insensitively")
	}
}

// TestParseTrustedRejectsWhatIsNotALoop: content that is not a loop at all
// (a pin whose hash matched but that was never a loop) is still an error.
func TestParseTrustedRejectsWhatIsNotALoop(t *testing.T) {
	for _, data := range []string{`[]`, `{}`, `{"loop": 3}`} {
		if _, err := dsl.ParseTrusted("x.json", []byte(data)); err == nil {
			t.Errorf("%s: no error", data)
		}
	}
}
