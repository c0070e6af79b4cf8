package cmd

import (
	"fmt"
	"os"

	"github.com/hook-loop/hook-loop/adapters/opencode"
	"github.com/hook-loop/hook-loop/adapters/pi"
	"github.com/hook-loop/hook-loop/internal/hookrun"
	"github.com/hook-loop/hook-loop/internal/serve"
	"github.com/urfave/cli/v2"
)

func init() { register(newServeCommand) }

// serveAdapters are the harnesses whose plugin keeps one co-process: the ones
// whose hook is code in the host process rather than a command per event.
var serveAdapters = map[string]func() hookrun.Adapter{
	"opencode": func() hookrun.Adapter { return opencode.New() },
	"pi":       func() hookrun.Adapter { return pi.New() },
}

type serveOptions struct {
	hookOptions
	Stdio   bool
	Harness string
}

func newServeCommand(s *IOStreams) *cli.Command {
	var o serveOptions
	return &cli.Command{
		Name:  "serve",
		Usage: "answer a host process's hook events over NDJSON on stdin/stdout (the opencode plugin's and pi extension's co-process)",
		UsageText: "hook-loop serve --stdio --harness opencode|pi [--config FILE] [--event-log FILE] [--hooks-config FILE] [--record]\n\n" +
			`First line out: {"hello":"hook-loop","version":V,...}. Then per line in {"id":N,"event":E,"input":{...},"cwd":D} ` +
			`one line out {"id":N,"stdout":S,"stderr":S,"exit":N}, exactly what the harness's one-shot hook command prints for that input.`,
		Hidden: true,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "stdio", Usage: "speak NDJSON on stdin/stdout (the only transport)", Destination: &o.Stdio},
			&cli.StringFlag{Name: "harness", Usage: "opencode or pi", Destination: &o.Harness},
			&cli.StringFlag{Name: "config", Usage: "loop DSL file (default: hook-loop.json at the project root; a request's config replaces it)", Destination: &o.ConfigPath},
			&cli.StringFlag{Name: "event-log", Usage: "event log (default: .hook-loop/events.jsonl at the project root)", Destination: &o.LogPath},
			&cli.StringFlag{Name: "hooks-config", Usage: "lifecycle hooks declaration (default: the user's config.json)", Destination: &o.HooksConfig},
			&cli.BoolFlag{Name: "record", Usage: "also keep the raw hook input in .hook-loop/trace.jsonl, for hook-loop replay", Destination: &o.Record},
		},
		Action: func(c *cli.Context) error { return runServe(c, s, o) },
	}
}

func runServe(c *cli.Context, s *IOStreams, o serveOptions) error {
	if !o.Stdio {
		return &ExitError{Code: 2, Message: "serve: --stdio is required (the only transport)"}
	}
	adapter, ok := serveAdapters[o.Harness]
	if !ok {
		return &ExitError{Code: 2, Message: fmt.Sprintf("serve: --harness: expected opencode or pi, got %q", o.Harness)}
	}
	cwd, _ := os.Getwd()
	return serve.Serve(c.Context, s.In, s.Out, serve.Options{
		Adapter: adapter, Version: Version, Cwd: cwd,
		ConfigPath: o.ConfigPath, LogPath: o.LogPath, HooksConfig: o.HooksConfig, Record: o.Record,
	})
}
