package cli

import (
	"slices"
	"strings"

	"github.com/hook-loop/hook-loop/hook"

	"github.com/hook-loop/hook-loop/adapters/registry"
	"github.com/hook-loop/hook-loop/adapters/registry/hooks"
	"github.com/hook-loop/hook-loop/adapters/setup"
	"github.com/hook-loop/hook-loop/hook/serve"
	"github.com/urfave/cli/v2"
)

// ServeOptions are the flags of serve: the *-hook flags that do not vary per
// event, and the harness whose adapter answers.
type ServeOptions struct {
	IO      *IOStreams
	WorkDir string
	Version string
	Stdio   bool
	Harness string
	hook.Flags
	getenv func(string) string
	// OwnedPaths are every harness's files, as the one-shot hook protects them.
	OwnedPaths []string
	harnesses  []setup.Harness
}

// NewCmdServe builds `serve`, the co-process the opencode plugin and the pi
// extension keep per host process; runF replaces the run function in tests.
func NewCmdServe(f *Factory, hs []setup.Harness, runF func(*ServeOptions) error) *cli.Command {
	o := &ServeOptions{harnesses: hs}
	return &cli.Command{
		Name:  "serve",
		Usage: "answer a host process's hook events over NDJSON on stdin/stdout (the opencode plugin's and pi extension's co-process)",
		UsageText: "hook-loop serve --stdio --harness NAME [--config FILE] [--event-log FILE] [--hooks-config FILE] [--record]\n\n" +
			`First line out: {"hello":"hook-loop","version":V,...}. Then per line in {"id":N,"event":E,"input":{...},"cwd":D} ` +
			`one line out {"id":N,"stdout":S,"stderr":S,"exit":N}, exactly what the harness's one-shot hook command prints for that input ` +
			`(a request's config replaces --config).`,
		Hidden: true,
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "stdio", Usage: "speak NDJSON on stdin/stdout (the only transport)", Destination: &o.Stdio},
			&cli.StringFlag{Name: "harness", Usage: "the harness whose events arrive (opencode, pi)", Destination: &o.Harness},
		}, hookFlags(&o.Flags)...),
		Action: func(c *cli.Context) error {
			o.IO, o.WorkDir, o.Version, o.getenv = f.IOStreams, f.Cwd(), f.Version, f.Getenv
			o.OwnedPaths = hooks.OwnedPaths(registry.Hooks(hs), f.Home(), f.Getenv)
			if runF != nil {
				return runF(o)
			}
			return runServe(c, o)
		},
	}
}

func runServe(c *cli.Context, o *ServeOptions) error {
	if !o.Stdio {
		return exitf(2, "usage: serve --stdio is required (the only transport)")
	}
	i := slices.IndexFunc(o.harnesses, func(h setup.Harness) bool { return h.Name() == o.Harness })
	if i < 0 {
		names := make([]string, len(o.harnesses))
		for j, h := range o.harnesses {
			names[j] = h.Name()
		}
		return exitf(2, "usage: serve --harness: expected one of %s, got %q", strings.Join(names, ", "), o.Harness)
	}
	h := o.harnesses[i]
	return serve.Serve(c.Context, o.IO.In, o.IO.Out, serve.Options{
		Adapter: h.NewAdapter, Version: o.Version, Cwd: o.WorkDir,
		ConfigPath: o.ConfigPath, LogPath: o.LogPath, HooksConfig: o.HooksConfig, Record: o.Record,
		Store: o.Store, OwnedPaths: o.OwnedPaths, Mode: hook.Mode(o.getenv, o.Mode),
	})
}
