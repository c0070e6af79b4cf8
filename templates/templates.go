// Package templates holds the files the scaffold writes into a project (the
// opencode plugin, the pi extension, ...), embedded in the binary so that an
// install never depends on files next to the executable.
//
// Every template is rendered by Render with text/template. String values of the
// data are substituted as JSON string literals (quotes included), so a template
// writes `const BIN = {{.Bin}}` and a path with spaces, quotes or backslashes
// still yields valid JavaScript/TypeScript. Booleans and numbers are substituted
// as written.
package templates

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"reflect"
	"text/template"
)

//go:embed */*.tmpl
var files embed.FS

// FS is the embedded tree, e.g. "opencode/hook_loop.js.tmpl".
func FS() fs.FS { return files }

// Render renders the embedded template name (e.g. "opencode/hook_loop.js.tmpl")
// with data, a struct or a map with string keys.
func Render(name string, data any) ([]byte, error) {
	src, err := files.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("template %s: %w", name, err)
	}
	t, err := template.New(name).Option("missingkey=error").Funcs(template.FuncMap{"json": jsonLiteral}).Parse(string(src))
	if err != nil {
		return nil, fmt.Errorf("template %s: %w", name, err)
	}
	values, err := quoteStrings(data)
	if err != nil {
		return nil, fmt.Errorf("template %s: %w", name, err)
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, values); err != nil {
		return nil, fmt.Errorf("template %s: %w", name, err)
	}
	return buf.Bytes(), nil
}

// jsonLiteral is the "json" template function, for values that are not top-level
// fields (e.g. an element of a list).
func jsonLiteral(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

// quoteStrings maps the top-level fields of data to template values, turning every
// string into its JSON literal.
func quoteStrings(data any) (map[string]any, error) {
	out := map[string]any{}
	if data == nil {
		return out, nil
	}
	v := reflect.ValueOf(data)
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	put := func(key string, f reflect.Value) error {
		if !f.IsValid() {
			out[key] = nil
			return nil
		}
		if f.Kind() == reflect.String {
			s, err := jsonLiteral(f.String())
			if err != nil {
				return err
			}
			out[key] = s
			return nil
		}
		out[key] = f.Interface()
		return nil
	}
	switch v.Kind() {
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			if !t.Field(i).IsExported() {
				continue
			}
			if err := put(t.Field(i).Name, v.Field(i)); err != nil {
				return nil, err
			}
		}
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return nil, fmt.Errorf("data must be a struct or a map with string keys, not %s", v.Type())
		}
		for _, k := range v.MapKeys() {
			f := v.MapIndex(k)
			for f.Kind() == reflect.Interface {
				f = f.Elem()
			}
			if err := put(k.String(), f); err != nil {
				return nil, err
			}
		}
	default:
		return nil, fmt.Errorf("data must be a struct or a map with string keys, not %s", v.Type())
	}
	return out, nil
}
