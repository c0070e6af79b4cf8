// Package schema holds the JSON Schema (draft 2020-12) of the hook-loop loop file,
// for editors ("$schema") and `hook-loop schema`.
package schema

import _ "embed"

// JSON is the schema document.
//
//go:embed hook-loop.schema.json
var JSON []byte
