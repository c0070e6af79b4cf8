package cli

import (
	"bytes"
	"strings"
	"testing"

	codexinstall "github.com/hook-loop/hook-loop/adapters/codex/install"
	"github.com/hook-loop/hook-loop/adapters/registry"
	"github.com/hook-loop/hook-loop/cli/cmdutil"
	"github.com/hook-loop/hook-loop/hook"
)

// The direct hook path reads a hook's flags as the full CLI does, and leaves
// everything else (help, unknown flags, arguments) to it.
func TestHookDirectFlagsMatchCLI(t *testing.T) {
	hs := registry.All()
	for _, args := range [][]string{
		{},
		{"--event", "Stop"},
		{"--event=Stop", "--config", "c.json", "--event-log=l.jsonl"},
		{"-event", "PreToolUse", "-record"},
		{"--record=false", "--hooks-config", "h.yaml"},
		{"--record=true", "--event", "A", "--event", "B"},
		{"--event", "--config"},
		{"--event="},
		{"--event", "Stop", "--mode", "warn", "--store=postgres://db/x"},
	} {
		var cli HookOptions
		f := &cmdutil.Factory{IOStreams: &IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}}
		app := NewApp(f, hs)
		for i, c := range app.Commands {
			if c.Name == "codex-hook" {
				app.Commands[i] = NewCmdHook(f, codexinstall.Harness, hs, func(o *HookOptions) error { cli = *o; return nil })
			}
		}
		if err := app.Run(append([]string{"hook-loop", "codex-hook"}, args...)); err != nil {
			t.Fatalf("%q: CLI: %v", args, err)
		}
		direct, ok := hook.ParseFlags(args)
		if !ok {
			t.Fatalf("%q: not read directly", args)
		}
		if direct.Event != cli.Event || direct.ConfigPath != cli.ConfigPath || direct.LogPath != cli.LogPath ||
			direct.HooksConfig != cli.HooksConfig || direct.Record != cli.Record || direct.Mode != cli.Mode || direct.Store != cli.Store {
			t.Errorf("%q: direct %+v, CLI %+v", args, direct, cli)
		}
	}
	for _, args := range [][]string{
		{"--help"}, {"-h"}, {"--event"}, {"--nope", "x"}, {"positional"}, {"--", "x"},
		{"--record=maybe"}, {"--generate-bash-completion"}, {"-"},
	} {
		if _, ok := hook.ParseFlags(args); ok {
			t.Errorf("%q read directly, want the full CLI", args)
		}
	}
}

// `codex-hook --help` still prints the command's help.
func TestHookHelpThroughMain(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := Main([]string{"hook-loop", "codex-hook", "--help"}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "--event-log") {
		t.Fatalf("no help:\n%s", out.String())
	}
}
