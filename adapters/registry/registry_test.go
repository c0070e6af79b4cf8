package registry

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/adapters/registry/hooks"
	"github.com/hook-loop/hook-loop/cli/cmdutil"
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

// TestListsAgree: the hook path's list (adapters/registry/hooks) names the same
// harnesses as the full one, in the same order, and each full entry's hook side
// is that harness's: adding a harness to one list and not the other fails here.
func TestListsAgree(t *testing.T) {
	full, lean := All(), hooks.All()
	names := func(n int, name func(int) string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = name(i)
		}
		return out
	}
	fn := names(len(full), func(i int) string { return full[i].Name() })
	ln := names(len(lean), func(i int) string { return lean[i].Name() })
	if !slices.Equal(fn, ln) {
		t.Fatalf("registry.All() is %v, hooks.All() is %v: add the harness to both, in the same place", fn, ln)
	}
	for i, h := range full {
		l := lean[i]
		if h.Hook().UsageText != l.Hook().UsageText || !slices.Equal(h.NativeEvents(), l.NativeEvents()) ||
			!slices.Equal(h.OwnedPaths("/home/u", nil), l.OwnedPaths("/home/u", nil)) {
			t.Errorf("%s: the full entry's hook side differs from hooks.All()'s", h.Name())
		}
	}
}
