// Package fuzzseed finds the real harness payloads captured in the shared folder
// (../shared/harness/<harness>/payloads beside the repository) so that native
// fuzz targets start from what harnesses really send. Tests call it at run time
// and fall back to their inline seeds when the folder is absent.
package fuzzseed

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// maxFile skips captures too large to be a useful seed.
const maxFile = 1 << 20

// Shared returns the shared folder (../shared relative to the module root
// containing the working directory), or an error saying why it is unusable.
func Shared() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
	shared := filepath.Join(dir, "..", "shared")
	if _, err := os.Stat(filepath.Join(shared, "harness")); err != nil {
		return "", errors.New(shared + "/harness is absent: fuzzing from inline seeds only")
	}
	return shared, nil
}

// Payload is one captured file.
type Payload struct {
	Name string // path relative to the harness's payloads folder
	Data []byte
}

// Payloads returns every .json file under ../shared/harness/<harness>/payloads,
// sorted by name; the error says why there are none.
func Payloads(harness string) ([]Payload, error) {
	shared, err := Shared()
	if err != nil {
		return nil, err
	}
	root := filepath.Join(shared, "harness", harness, "payloads")
	var out []Payload
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(p) != ".json" {
			return err
		}
		if info, err := d.Info(); err != nil || info.Size() > maxFile {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out = append(out, Payload{Name: filepath.ToSlash(rel), Data: b})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errors.New(root + " holds no .json payloads")
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Strings returns every string value stored under one of keys anywhere in the
// JSON document data (e.g. every "command" of every captured tool call).
func Strings(data []byte, keys ...string) []string {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return nil
	}
	want := map[string]bool{}
	for _, k := range keys {
		want[k] = true
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				if s, ok := c.(string); ok && want[k] {
					out = append(out, s)
				}
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(v)
	sort.Strings(out)
	return out
}

// Objects returns every JSON object nested in data that has all of keys,
// re-encoded: the records of experiments embed the hook's stdin this way.
func Objects(data []byte, keys ...string) [][]byte {
	var v any
	if json.Unmarshal(data, &v) != nil {
		return nil
	}
	var out [][]byte
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			all := true
			for _, k := range keys {
				if _, ok := x[k]; !ok {
					all = false
				}
			}
			if all {
				if b, err := json.Marshal(x); err == nil {
					out = append(out, b)
				}
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(v)
	return out
}
