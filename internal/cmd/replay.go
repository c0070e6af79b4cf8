package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	loopdsl "github.com/hook-loop/hook-loop/loop/dsl"

	"github.com/hook-loop/hook-loop/internal/project"
	"github.com/hook-loop/hook-loop/internal/replay"
	"github.com/urfave/cli/v2"
)

type replayOptions struct {
	io       *IOStreams
	dsl      string
	harness  string
	eventLog string
	rebase   string
	json     bool
	trace    string
}

func init() { register(newReplayCommand) }

func newReplayCommand(s *IOStreams) *cli.Command {
	o := &replayOptions{io: s}
	return &cli.Command{
		Name:      "replay",
		Usage:     "feed a recorded trace (.hook-loop/trace.jsonl) through a loop file and print each decision",
		ArgsUsage: "TRACE",
		Description: "Record a real session by installing the hooks with --record, then replay it against an\n" +
			"edited loop without spending a token. Each line shows the event, the rules that matched,\n" +
			"the decision and the state. Nothing is written unless --event-log is given.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dsl", Aliases: []string{"config"}, Usage: "loop `FILE` (default: <project>/hook-loop.json)", Destination: &o.dsl},
			&cli.StringFlag{Name: "harness", Usage: "harness of lines that do not name one: " + strings.Join(harnessNames(), "|"), Value: "codex", Destination: &o.harness},
			&cli.StringFlag{Name: "event-log", Usage: "write the replayed events to `FILE` (default: a temporary log)", Destination: &o.eventLog},
			&cli.StringFlag{Name: "rebase", Usage: "the recorded project `DIR`, replaced by this project's root in the inputs", Destination: &o.rebase},
			&cli.BoolFlag{Name: "json", Usage: "print one JSON object per event", Destination: &o.json},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return exitf(2, "usage: replay needs exactly one TRACE file (see 'hook-loop replay --help')")
			}
			o.trace = c.Args().First()
			return replayRun(c.Context, o)
		},
	}
}

func harnessNames() []string {
	var names []string
	for n := range adapters() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func replayRun(ctx context.Context, o *replayOptions) error {
	ads := adapters()
	if _, ok := ads[o.harness]; !ok {
		return exitf(2, "usage: --harness must be one of %s (got %q)", strings.Join(harnessNames(), ", "), o.harness)
	}
	cwd, _ := os.Getwd()
	root := project.Root(cwd)
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
	enc := json.NewEncoder(o.io.Out)
	final, err := replay.Run(ctx, replay.Options{Spec: spec, Adapters: ads, Harness: o.harness,
		LogPath: o.eventLog, Root: root, Rebase: o.rebase}, lines, func(s replay.Step) {
		if o.json {
			_ = enc.Encode(s)
			return
		}
		replay.Print(o.io.Out, s)
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
		fmt.Fprintf(o.io.Out, "final state: %s (outcome %s, %d refused stops in a row)\n", state, outcome, final.StopBlocks)
	}
	return nil
}
