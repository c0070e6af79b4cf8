package schema_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/hook-loop/hook-loop/loop/schema"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

func compile(t *testing.T) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema.JSON))
	if err != nil {
		t.Fatalf("schema is not JSON: %v", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("hook-loop.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("hook-loop.schema.json")
	if err != nil {
		t.Fatalf("compile schema: %v", err)
	}
	return s
}

func validateFile(t *testing.T, s *jsonschema.Schema, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if err := s.Validate(doc); err != nil {
		t.Errorf("%s does not validate: %v", path, err)
	}
}

func TestReferenceFilesValidate(t *testing.T) {
	s := compile(t)
	ref := filepath.Join("..", "..", "..", "shared", "reference", "python-hook-loop")
	files, _ := filepath.Glob(filepath.Join(ref, "*", "*.json"))
	files = append(files, filepath.Join(ref, "hook-loop.json"))
	if _, err := os.Stat(ref); err != nil {
		t.Skip("../shared/reference is absent: the prototype's files are not checked against the schema")
	}
	for _, f := range files {
		validateFile(t, s, f)
	}
}

func TestGalleryValidates(t *testing.T) {
	s := compile(t)
	files, _ := filepath.Glob(filepath.Join("..", "..", "gallery", "*.json"))
	if len(files) == 0 {
		t.Fatal("no gallery files found")
	}
	for _, f := range files {
		validateFile(t, s, f)
	}
}

func TestSchemaRejectsBadFiles(t *testing.T) {
	s := compile(t)
	for name, doc := range map[string]string{
		"no loop":         `{}`,
		"states not list": `{"loop": {"id": "x", "initial_state": "a", "states": "a", "events": []}}`,
		"bad scope":       `{"loop": {"id": "x", "initial_state": "a", "states": ["a"], "events": [], "scope": "team"}}`,
		"rule without emit or record": `{"loop": {"id": "x", "initial_state": "a", "states": ["a"], "events": []},
			"codex": {"event_map": [{"codex_event": "Stop"}]}}`,
		"unknown codex_event": `{"loop": {"id": "x", "initial_state": "a", "states": ["a"], "events": []},
			"codex": {"event_map": [{"codex_event": "Stopp", "emit": "e"}]}}`,
		"negative max_stop_blocks": `{"loop": {"id": "x", "initial_state": "a", "states": ["a"], "events": [], "max_stop_blocks": -1}}`,
	} {
		var v any
		if err := json.Unmarshal([]byte(doc), &v); err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(v); err == nil {
			t.Errorf("%s: validated", name)
		}
	}
}

// max_stop_blocks: 0 (never capped) is valid, as the loader accepts it.
func TestSchemaAcceptsNeverCappedStops(t *testing.T) {
	var v any
	if err := json.Unmarshal([]byte(`{"loop": {"id": "x", "initial_state": "a", "states": ["a"], "events": [], "max_stop_blocks": 0}}`), &v); err != nil {
		t.Fatal(err)
	}
	if err := compile(t).Validate(v); err != nil {
		t.Errorf("max_stop_blocks 0 does not validate: %v", err)
	}
}
