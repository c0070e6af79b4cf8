// Package gallery holds hook-loop's own example loops, embedded so that
// `--profile NAME` works without any file on disk. Every loop here keys its
// rules on what real harnesses send (see harness/*/payloads in the shared
// folder), and each file is loaded and validated by the tests.
package gallery

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/tidwall/gjson"
)

//go:embed *.json
var files embed.FS

// Default is the profile used when none is named.
const Default = "software_delivery"

// Names lists the embedded loops, sorted, without the .json suffix.
func Names() []string {
	entries, _ := fs.ReadDir(files, ".")
	var out []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".json"); ok && !e.IsDir() {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// Get returns the DSL file of the named loop. The name may carry a .json suffix.
func Get(name string) ([]byte, error) {
	name = strings.TrimSuffix(name, ".json")
	if name == "" || strings.ContainsAny(name, `/\`) {
		return nil, fmt.Errorf("unknown gallery loop %q: expected one of %s", name, strings.Join(Names(), ", "))
	}
	b, err := files.ReadFile(name + ".json")
	if err != nil {
		return nil, fmt.Errorf("unknown gallery loop %q: expected one of %s", name, strings.Join(Names(), ", "))
	}
	return b, nil
}

// Summary is the first sentence of the named loop's "comment": the one line
// `hook-loop gallery` shows for it ("" when the loop has no comment).
func Summary(name string) (string, error) {
	b, err := Get(name)
	if err != nil {
		return "", err
	}
	c := gjson.GetBytes(b, "comment").String()
	if i := strings.Index(c, ". "); i >= 0 {
		c = c[:i+1]
	}
	return c, nil
}
