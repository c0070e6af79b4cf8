package dsl

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestGraphGolden draws every reference file in both formats.
func TestGraphGolden(t *testing.T) {
	dir, files := referenceFiles(t)
	for _, rel := range files {
		spec, _, err := Load(filepath.Join(dir, rel))
		if err != nil {
			t.Fatalf("Load %s: %v", rel, err)
		}
		base := strings.ReplaceAll(strings.TrimSuffix(rel, ".json"), "/", "_")
		for format, ext := range map[string]string{GraphMermaid: ".mmd", GraphDOT: ".dot"} {
			t.Run(base+ext, func(t *testing.T) {
				out, err := Graph(spec.Definition, format)
				if err != nil {
					t.Fatal(err)
				}
				again, _ := Graph(spec.Definition, format)
				if out != again {
					t.Fatal("Graph is not deterministic")
				}
				checkGolden(t, base+ext, []byte(out))
			})
		}
	}
}

// TestGraphMarks checks what the golden files are meant to show, on a loop
// with guards, odd names and a state that waits for a person.
func TestGraphMarks(t *testing.T) {
	d := MustDefinitionFromJSON(`{"id": "g", "initial_state": "to do", "states": ["to do", "review", "end", "done", "stopped"],
		"events": ["go", "ok"], "waits_for_human": ["review"],
		"transitions": [{"from": "to do", "event": "go", "to": "review"},
			{"from": "review", "event": "ok", "to": "end", "guards": ["approved", "tests_pass"]},
			{"from": "end", "event": "ok", "to": "done"}]}`)
	d.StopState = "stopped"
	mmd, _ := Graph(d, GraphMermaid)
	for _, want := range []string{
		"stateDiagram-v2\n",
		`state "to do" as s0`,
		`state "end" as s2`, // a Mermaid keyword gets an alias
		"[*] --> s0\n",
		"review --> s2 : ok [approved, tests_pass]\n",
		"done --> [*]\n", "stopped --> [*]\n",
		"note right of stopped : stop state\n",
		"class done terminal\n", "class stopped stop\n", "class review human\n",
	} {
		if !strings.Contains(mmd, want) {
			t.Errorf("mermaid lacks %q:\n%s", want, mmd)
		}
	}
	dot, _ := Graph(d, GraphDOT)
	for _, want := range []string{
		`digraph "g" {`,
		`"__start__" -> "to do";`,
		`"done" [shape=doublecircle];`,
		`"stopped" [shape=doublecircle, style=dashed, xlabel="stop state"];`,
		`"review" -> "end" [label="ok [approved, tests_pass]"];`,
		`"review" [shape=box, style=rounded, xlabel="waits for a person"];`,
	} {
		if !strings.Contains(dot, want) {
			t.Errorf("dot lacks %q:\n%s", want, dot)
		}
	}
	if _, err := Graph(d, "svg"); err == nil {
		t.Error("unknown format accepted")
	}
}

func TestGraphEscapes(t *testing.T) {
	d := MustDefinitionFromJSON(`{"id": "q\"x", "initial_state": "a", "states": ["a", "done"], "events": ["e;1#"],
		"transitions": [{"from": "a", "event": "e;1#", "to": "done", "guards": ["g\"h"]}]}`)
	mmd, _ := Graph(d, GraphMermaid)
	if !strings.Contains(mmd, "a --> done : e#59;1#35; [g#quot;h]\n") {
		t.Errorf("mermaid label not escaped:\n%s", mmd)
	}
	dot, _ := Graph(d, GraphDOT)
	if !strings.Contains(dot, `digraph "q\"x" {`) || !strings.Contains(dot, `[label="e;1# [g\"h]"]`) {
		t.Errorf("dot not escaped:\n%s", dot)
	}
}
