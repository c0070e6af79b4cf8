// Package deps pins the modules the project uses while packages are being written
// in parallel, so that no two changes race on go.mod. Remove once every module
// below is imported by real code.
package deps

import (
	_ "github.com/adrg/xdg"
	_ "github.com/gofrs/flock"
	_ "github.com/google/uuid"
	_ "github.com/pelletier/go-toml/v2"
	_ "github.com/santhosh-tekuri/jsonschema/v6"
	_ "github.com/tidwall/gjson"
	_ "github.com/tidwall/sjson"
	_ "mvdan.cc/sh/v3/syntax"
)
