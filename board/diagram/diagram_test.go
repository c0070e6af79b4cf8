package diagram

import (
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	loopdsl "github.com/hook-loop/hook-loop/loop/dsl"

	"github.com/hook-loop/hook-loop/gallery"
)

func TestSVG(t *testing.T) {
	for _, name := range gallery.Names() {
		src, _ := gallery.Get(name)
		path := filepath.Join(t.TempDir(), "hook-loop.json")
		os.WriteFile(path, src, 0o644)
		spec, _, err := loopdsl.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		def := spec.Definition
		cur := def.States[len(def.States)/2]
		svg := SVG(def, cur)
		// Well-formed XML, every state drawn once, the current one marked.
		dec := xml.NewDecoder(strings.NewReader(svg))
		for {
			if _, err := dec.Token(); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("%s: not well-formed: %v", name, err)
			}
		}
		for _, s := range def.States {
			if n := strings.Count(svg, `data-state="`+s+`"`); n != 1 {
				t.Errorf("%s: state %s drawn %d times", name, s, n)
			}
		}
		if !strings.Contains(svg, `class="state current" data-state="`+cur+`"`) {
			t.Errorf("%s: current state %s not highlighted", name, cur)
		}
		if strings.Count(svg, "current") != 1 {
			t.Errorf("%s: more than one state highlighted", name)
		}
	}
}

func TestSVGEscapesNames(t *testing.T) {
	def := &loopdsl.Definition{ID: `<x>`, InitialState: `a&b`, States: []string{`a&b`, `"c"`},
		Transitions: []loopdsl.Transition{{From: `a&b`, Event: `<go>`, To: `"c"`}}}
	svg := SVG(def, `"c"`)
	if strings.Contains(svg, "<go>") || strings.Contains(svg, `"c"<`) || !strings.Contains(svg, "&lt;go&gt;") {
		t.Errorf("names not escaped: %s", svg)
	}
}
