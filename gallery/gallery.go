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

// traces are real harness sessions of each loop, recorded by e2e/traces_test.go
// (traces/README.md): what `hook-loop gallery check` replays.
//
//go:embed traces/*/*.jsonl
var traces embed.FS

// Trace is one recorded session of a gallery loop through one harness's hooks.
type Trace struct {
	Loop, Harness string
	// Kind is complete, early-stop (a stop refused early, then complete) or
	// complete-subagent (the verdict from a real subagent).
	Kind string
	Name string // traces/<loop>/<harness>-<kind>.jsonl
	Data []byte
}

// Traces returns the recorded sessions of loop, sorted by file name.
func Traces(loop string) ([]Trace, error) {
	entries, err := fs.ReadDir(traces, "traces/"+loop)
	if err != nil {
		return nil, nil // a loop without recorded sessions
	}
	var out []Trace
	for _, e := range entries {
		base, ok := strings.CutSuffix(e.Name(), ".jsonl")
		h, kind, ok2 := strings.Cut(base, "-")
		if !ok || !ok2 {
			continue
		}
		name := "traces/" + loop + "/" + e.Name()
		b, err := traces.ReadFile(name)
		if err != nil {
			return nil, err
		}
		out = append(out, Trace{Loop: loop, Harness: h, Kind: kind, Name: name, Data: b})
	}
	return out, nil
}

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
