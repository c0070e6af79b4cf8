// Package jsonkind names the kind of a JSON value for error messages ("expected a
// string, got an array"), the same way in every decoder and loader.
package jsonkind

import "github.com/tidwall/gjson"

// Name is the bare kind: null, boolean, number, string, array, object, or
// nothing when the value is absent.
func Name(v gjson.Result) string {
	switch v.Type {
	case gjson.Null:
		if !v.Exists() {
			return "nothing"
		}
		return "null"
	case gjson.False, gjson.True:
		return "boolean"
	case gjson.Number:
		return "number"
	case gjson.String:
		return "string"
	}
	if v.IsArray() {
		return "array"
	}
	return "object"
}

// Of is Name with its article: "a string", "an object", "null", "nothing".
func Of(v gjson.Result) string {
	switch n := Name(v); n {
	case "null", "nothing":
		return n
	case "array", "object":
		return "an " + n
	default:
		return "a " + n
	}
}
