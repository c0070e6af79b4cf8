package install

import (
	"encoding/json"
	"fmt"

	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/templates"
)

// extensionTemplate is the embedded pi extension.
const extensionTemplate = "pi/hook_loop.ts.tmpl"

// defaultTimeoutMS bounds one pi-hook call from the extension. pi waits for it
// (the call is synchronous), so it is short; hook-loop answers in milliseconds.
const defaultTimeoutMS = 10000

// PiExtension is the data the pi extension is rendered with. Paths are absolute:
// pi runs extensions in its own cwd, which may be any subdirectory.
type PiExtension struct {
	Version  string
	HookLoop string // absolute path of the hook-loop binary
	// Config and EventLog are the loop file and log; both empty makes the
	// extension look for hook-loop.json upwards from pi's cwd (user scope).
	Config      string
	EventLog    string
	HooksConfig string
	Record      bool   // pass --record: pi-hook keeps each raw input in .hook-loop/trace.jsonl
	Store       string // pass --store: the loop's log in PostgreSQL (the URL without its password)
	Mode        string // pass --mode ("": the loop's)
	State       string // pass --state: "user" when user-wide hooks keep each project's log in the user's state directory
	TimeoutMS   int
	// FailClosed and MaxStopBlocks are fallbacks for when neither hook-loop nor
	// the loop file can be read; the extension prefers the live values.
	FailClosed    bool
	MaxStopBlocks int
}

// renderExtension renders the extension file.
func renderExtension(x PiExtension) ([]byte, error) {
	if x.HookLoop == "" {
		return nil, fmt.Errorf("pi extension: the hook-loop binary path is empty")
	}
	if x.TimeoutMS <= 0 {
		x.TimeoutMS = defaultTimeoutMS
	}
	if x.MaxStopBlocks <= 0 {
		x.MaxStopBlocks = dsl.DefaultMaxStopBlocks
	}
	if x.Version == "" {
		x.Version = "dev"
	}
	return templates.Render(extensionTemplate, x)
}

func jsonUnquote(lit []byte, v *string) error { return json.Unmarshal(lit, v) }
