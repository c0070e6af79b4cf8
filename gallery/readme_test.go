package gallery

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/loop/dsl"
)

var update = flag.Bool("update", false, "rewrite the diagrams in gallery/README.md")

// graphBlock finds each generated diagram: the marker names the loop.
var graphBlock = regexp.MustCompile("(?s)<!-- graph:([a-z_]+) -->\n```mermaid\n.*?```\n<!-- /graph -->")

// TestReadmeDiagramsAreCurrent fails when a diagram in README.md is not what
// `hook-loop graph` draws for the loop today; run with -update to refresh.
func TestReadmeDiagramsAreCurrent(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var stale []string
	out := graphBlock.ReplaceAllStringFunc(string(data), func(block string) string {
		name := graphBlock.FindStringSubmatch(block)[1]
		seen[name] = true
		raw, err := Get(name)
		if err != nil {
			t.Errorf("README names unknown loop %s", name)
			return block
		}
		spec, _, err := dsl.Parse(name+".json", raw)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		g, err := dsl.Graph(spec.Definition, "mermaid")
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("<!-- graph:%s -->\n```mermaid\n%s\n```\n<!-- /graph -->", name, strings.TrimRight(g, "\n"))
		if want != block {
			stale = append(stale, name)
		}
		return want
	})
	for _, n := range Names() {
		if !seen[n] {
			t.Errorf("README.md has no diagram for %s (add <!-- graph:%s --> ... <!-- /graph -->)", n, n)
		}
	}
	if len(stale) == 0 {
		return
	}
	if *update {
		if err := os.WriteFile("README.md", []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md diagrams are stale for %s: run go test ./gallery -update", strings.Join(stale, ", "))
}
