// Package pythonsdk holds the Python SDK's source files, so hook-loop can put
// them on a Python executor's path without an install step.
package pythonsdk

import "embed"

// Files is the hook_loop_hooks package, as shipped in this repository.
//
//go:embed hook_loop_hooks/*.py
var Files embed.FS
