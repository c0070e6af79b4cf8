package scaffold

import "flag"

// update rewrites the package's golden files (testdata/golden) from the current
// output: go test ./scaffold -update. One flag for the whole package.
var update = flag.Bool("update", false, "rewrite testdata/golden files from the current output")
