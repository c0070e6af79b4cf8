package dsl

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse: loading a DSL file never panics, whatever the bytes, and a file
// that loads can be drawn and has a consistent error/diagnostics answer.
func FuzzParse(f *testing.F) {
	if dir, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "reference", "python-hook-loop")); err == nil {
		for _, pattern := range []string{"gallery/*.json", "examples/*.json", "hook-loop.json"} {
			m, _ := filepath.Glob(filepath.Join(dir, pattern))
			for _, file := range m {
				if data, err := os.ReadFile(file); err == nil {
					f.Add(data)
				}
			}
		}
	}
	for _, seed := range []string{
		baseDSL,
		``, `null`, `[]`, `{}`, `{"loop": null}`, `{"loop": []}`, `{"loop": {}}`,
		`{"loop": {"id": "x", "initial_state": "a", "states": ["a"], "events": [], "terminal_states": []}}`,
		`{"loop": {"id": "x", "initial_state": "a", "states": ["a", "done"], "events": ["e"], "transitions": [{"from": "a", "event": "e", "to": "done"}]},
		  "codex": {"event_map": [{"codex_event": "Stop", "when": {"exit_code": "-0", "command_match": "(?=x)"}, "emit": "e"}]}}`,
		`{"loop": {"id": 1, "states": {"a": 1}, "transitions": "x"}, "simulation": {"agent_steps": {"": [1]}, "verdicts": {}}}`,
		`{"loop": {"id": "x", "id": "y"}} trailing`,
		"{\"loop\": {\"id\": \"\xff\"}}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		spec, ds, err := Parse("fuzz.json", data)
		if (err != nil) != ds.HasErrors() {
			t.Fatalf("err = %v but diagnostics have errors = %v", err, ds.HasErrors())
		}
		if err != nil {
			if spec != nil {
				t.Fatal("a failed Parse returned a Spec")
			}
			_ = err.Error()
			return
		}
		for _, format := range GraphFormats {
			if _, err := Graph(spec.Definition, format); err != nil {
				t.Fatal(err)
			}
		}
	})
}
