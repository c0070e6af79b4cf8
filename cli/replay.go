package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/adapters/registry"
	"github.com/hook-loop/hook-loop/adapters/registry/hooks"
	"github.com/hook-loop/hook-loop/adapters/setup"
	"github.com/hook-loop/hook-loop/cli/replay"
	loopdsl "github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/project"
	"github.com/urfave/cli/v2"
)

// ReplayOptions are replay's arguments.
type ReplayOptions struct {
	IO       *IOStreams
	WorkDir  string
	Adapters map[string]harness.Adapter
	// OwnedPaths are the harnesses' files the replayed engine protects.
	OwnedPaths []string
	dsl        string
	harness    string
	eventLog   string
	rebase     string
	json       bool
	trace      string
}

// NewCmdReplay builds `replay` for the harnesses hs; runF replaces the run
// function in tests.
func NewCmdReplay(f *Factory, hs []setup.Harness, runF func(*ReplayOptions) error) *cli.Command {
	o := &ReplayOptions{}
	return &cli.Command{
		Name:      "replay",
		Usage:     "feed a recorded trace (trace.jsonl beside the project's log) through a loop file and print each decision",
		ArgsUsage: "[TRACE]",
		Description: "Record a real session by installing the hooks with --record, then replay it against an\n" +
			"edited loop without spending a token. Each line shows the event, the rules that matched,\n" +
			"the decision and the state. Nothing is written unless --event-log is given.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dsl", Aliases: []string{"config"}, Usage: "loop `FILE` (default: <project>/hook-loop.json)", Destination: &o.dsl},
			&cli.StringFlag{Name: "harness", Usage: "harness of lines that do not name one: " + strings.Join(harnessNames(hs), "|"), Value: "codex", Destination: &o.harness},
			&cli.StringFlag{Name: "event-log", Usage: "write the replayed events to `FILE`, a new log or one of simulate's (default: a temporary log)", Destination: &o.eventLog},
			&cli.StringFlag{Name: "rebase", Usage: "the recorded project `DIR`, replaced by this project's root in the inputs", Destination: &o.rebase},
			&cli.BoolFlag{Name: "json", Usage: "print one JSON object per event", Destination: &o.json},
		},
		Action: func(c *cli.Context) error {
			switch c.NArg() {
			case 0:
				// What hooks installed with --record keep, beside the project's log.
				o.trace = filepath.Join(filepath.Dir(project.FindLog(project.Root(f.Cwd()), f.Getenv)), "trace.jsonl")
			case 1:
				o.trace = c.Args().First()
			default:
				return exitf(2, "usage: replay takes one TRACE file (see 'hook-loop replay --help')")
			}
			o.IO, o.WorkDir, o.Adapters = f.IOStreams, f.Cwd(), hooks.Adapters(registry.Hooks(hs))
			o.OwnedPaths = hooks.OwnedPaths(registry.Hooks(hs), f.Home(), f.Getenv)
			return run(runF, func(o *ReplayOptions) error { return runReplay(c.Context, o) }, o)
		},
	}
}

func harnessNames(hs []setup.Harness) []string {
	var names []string
	for _, h := range hs {
		names = append(names, h.Name())
	}
	sort.Strings(names)
	return names
}

func runReplay(ctx context.Context, o *ReplayOptions) error {
	ads := o.Adapters
	if _, ok := ads[o.harness]; !ok {
		return exitf(2, "usage: --harness must be one of %s (got %q)", strings.Join(slices.Sorted(maps.Keys(ads)), ", "), o.harness)
	}
	root := project.Root(o.WorkDir)
	dsl := o.dsl
	if dsl == "" {
		dsl = project.ConfigPath(root)
	}
	spec, _, err := loopdsl.Load(dsl)
	if err != nil {
		return err
	}
	lines, err := replay.ReadTrace(o.trace)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(o.IO.Out)
	final, err := replay.Run(ctx, replay.Options{Spec: spec, Adapters: ads, Harness: o.harness,
		LogPath: o.eventLog, Root: root, Rebase: o.rebase, OwnedPaths: o.OwnedPaths}, lines, func(s replay.Step) {
		if o.json {
			_ = enc.Encode(s)
			return
		}
		replay.Print(o.IO.Out, s)
	})
	if err != nil {
		return fmt.Errorf("replay %s: %w", o.trace, err)
	}
	if !o.json {
		state := final.State
		if state == "" {
			state = spec.Definition.InitialState
		}
		outcome := final.Outcome
		if outcome == "" {
			outcome = "none"
		}
		fmt.Fprintf(o.IO.Out, "final state: %s (outcome %s, %d refused stops in a row)\n", state, outcome, final.StopBlocks)
	}
	return nil
}
