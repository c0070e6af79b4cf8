package registry

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/internal/cmdutil"
)

// TestHarnessesAgree checks what the CLI relies on: unique names, the install
// command named after its harness, events to decode, and files to protect.
func TestHarnessesAgree(t *testing.T) {
	f := &cmdutil.Factory{IOStreams: &cmdutil.IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}}
	seen := map[string]bool{}
	for _, h := range All() {
		name := h.Name()
		if seen[name] {
			t.Errorf("%s listed twice", name)
		}
		seen[name] = true
		if got := h.NewCmd(f).Name; got != name {
			t.Errorf("%s: install command is %q", name, got)
		}
		if got := h.NewAdapter().Harness(); got != name {
			t.Errorf("%s: adapter says %q", name, got)
		}
		if len(h.NativeEvents()) == 0 {
			t.Errorf("%s: no native events", name)
		}
		if len(h.OwnedPaths("", nil)) == 0 {
			t.Errorf("%s: owns no file", name)
		}
	}
}
