package cmd

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/session"
	"github.com/hook-loop/hook-loop/loop/sim"
)

// SimulateOptions are simulate's arguments.
type SimulateOptions struct {
	IO        *IOStreams
	File      string
	EventLog  string
	SessionID string
}

// NewCmdSimulate builds `simulate`; runF replaces the run function in tests.
func NewCmdSimulate(f *Factory, runF func(*SimulateOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "simulate",
		Usage:     "run a loop with its scripted fake agent and evaluator (no model needed)",
		ArgsUsage: "FILE",
		Description: "Plays the file's simulation section (budget, agent_steps, verdicts) against the\n" +
			"loop, records every step in the event log and prints the final state. Exit 0 only\n" +
			"when the final state is terminal.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "event-log", Value: "hook-loop-events.jsonl", Usage: "JSONL event log to append to (an existing session resumes)"},
			&cli.StringFlag{Name: "session-id", Value: sim.DefaultSimulationSession, Usage: "session to run"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return exitf(2, "usage: simulate takes exactly one FILE (see 'hook-loop simulate --help')")
			}
			return run(runF, runSimulate, &SimulateOptions{IO: f.IOStreams, File: c.Args().First(), EventLog: c.String("event-log"), SessionID: c.String("session-id")})
		},
	}
}

func runSimulate(o *SimulateOptions) error {
	s := o.IO
	if o.SessionID == "" {
		return exitf(2, "usage: --session-id must not be empty")
	}
	spec, _, err := dsl.Load(o.File)
	if err != nil {
		fmt.Fprintf(s.ErrOut, "invalid: %s\n", oneLine(err.Error()))
		return exitf(1, "")
	}
	if spec.Definition.StopState == "" {
		fmt.Fprintf(s.ErrOut, "invalid: %s: loop.stop_state: %s\n", o.File, sim.ErrNoStopState)
		return exitf(1, "")
	}
	log := session.Open(o.EventLog)
	rt := sim.NewRuntime(spec.Definition, log,
		sim.NewFakeAgent(spec.Simulation.AgentSteps), sim.NewFakeEvaluator(spec.Simulation.Verdicts))
	rt.SessionID = o.SessionID
	final, err := rt.RunUntilStop(spec.Simulation.Budget)
	for _, w := range log.Warnings() {
		fmt.Fprintf(s.ErrOut, "warning: %s\n", oneLine(w))
	}
	if err != nil {
		if errors.Is(err, sim.ErrNoVerdicts) {
			fmt.Fprintf(s.ErrOut, "simulation failed: %s (in state %s; add verdicts to simulation.verdicts)\n", err, rt.State())
		} else {
			fmt.Fprintf(s.ErrOut, "simulation failed: %s\n", oneLine(err.Error()))
		}
		return exitf(1, "")
	}
	fmt.Fprintf(s.Out, "final_state: %s\n", final)
	fmt.Fprintf(s.Out, "event_log: %s\n", o.EventLog)
	if !spec.Definition.IsTerminal(final) {
		return exitf(1, "")
	}
	return nil
}
