package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/hook-loop/hook-loop/cli/cmdutil"
	"github.com/hook-loop/hook-loop/cli/replay"
	"github.com/hook-loop/hook-loop/lifecycle"
	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/loop/session"
	"github.com/hook-loop/hook-loop/loop/sim"
)

// resumeLog is the log --resume continues when no --event-log is given: the
// one simulate wrote by default before runs got a fresh log each.
const resumeLog = "hook-loop-events.jsonl"

// SimulateOptions are simulate's arguments.
type SimulateOptions struct {
	IO          *IOStreams
	WorkDir     string
	File        string
	Profile     string
	EventLog    string // "" = a fresh temporary log
	Resume      bool
	SessionID   string
	HooksConfig string
}

// NewCmdSimulate builds `simulate`; runF replaces the run function in tests.
func NewCmdSimulate(f *Factory, runF func(*SimulateOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "simulate",
		Usage:     "run a loop with its scripted fake agent and evaluator (no model needed)",
		ArgsUsage: "[FILE | --profile NAME] (default: the project's hook-loop.json)",
		Description: "Plays the file's simulation section (budget, agent_steps, verdicts) against the\n" +
			"loop, with the user's lifecycle hooks as a hook runs them, records every step in\n" +
			"a fresh temporary event log (removed afterwards) and prints the final state.\n" +
			"--event-log or --resume continue an earlier run's session instead; a log that\n" +
			"holds a harness's sessions is refused. Exit 0 only when the final state is terminal.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "event-log", Usage: "JSONL event log of earlier simulations to append to; its session resumes where it stopped (default: a fresh temporary log)"},
			&cli.BoolFlag{Name: "resume", Usage: "continue the session in --event-log (default " + resumeLog + ") where an earlier run stopped"},
			&cli.StringFlag{Name: "session-id", Value: sim.DefaultSimulationSession, Usage: "session to run"},
			&cli.StringFlag{Name: "hooks-config", Usage: "lifecycle hooks declaration (default: the user's config.yaml or config.json)"},
			loopFlag(),
		},
		Action: func(c *cli.Context) error {
			o := &SimulateOptions{IO: f.IOStreams, WorkDir: f.Cwd(), EventLog: c.String("event-log"), Resume: c.Bool("resume"),
				SessionID: c.String("session-id"), HooksConfig: c.String("hooks-config")}
			var err error
			if o.File, o.Profile, err = loopArgs(c, f); err != nil {
				return err
			}
			return run(runF, runSimulate, o)
		},
	}
}

func runSimulate(o *SimulateOptions) error {
	s := o.IO
	if o.SessionID == "" {
		return exitf(2, "usage: --session-id must not be empty")
	}
	spec, _, err := loadLoop(o.File, o.Profile)
	var ee *ExitError
	if errors.As(err, &ee) {
		return err
	}
	if err != nil {
		fmt.Fprintf(s.ErrOut, "invalid: %s\n", oneLine(err.Error()))
		return exitf(1, "")
	}
	if spec.Definition.StopState == "" {
		fmt.Fprintf(s.ErrOut, "invalid: %s: loop.stop_state: %s\n", o.File, sim.ErrNoStopState)
		return exitf(1, "")
	}
	logPath := o.EventLog
	temp := false
	switch {
	case logPath == "" && o.Resume:
		logPath = resumeLog
	case logPath == "":
		// A fresh log each run: an edited loop re-simulated must not pick up
		// the last run's final state.
		dir, err := os.MkdirTemp("", "hook-loop-simulate-")
		if err != nil {
			return fmt.Errorf("simulate: %w", err)
		}
		logPath, temp = filepath.Join(dir, "events.jsonl"), true
		defer replay.RemoveTempLog(logPath)
	}
	if err := replay.CheckOwnLog(cmdutil.Resolve(o.WorkDir, logPath)); err != nil {
		fmt.Fprintf(s.ErrOut, "simulate: %s\n", err)
		return exitf(1, "")
	}
	log := session.Open(cmdutil.Resolve(o.WorkDir, logPath))
	lc, loadRecord := lifecycle.ForHook(cmdutil.Resolve(o.WorkDir, o.HooksConfig))
	if loadRecord != nil {
		fmt.Fprintf(s.ErrOut, "warning: lifecycle hooks not loaded (%s); simulating without them\n", loadRecord.Type)
	}
	rt := sim.NewRuntime(spec.Definition, log,
		sim.NewFakeAgent(spec.Simulation.AgentSteps), sim.NewFakeEvaluator(spec.Simulation.Verdicts))
	rt.SessionID = o.SessionID
	rt.Engine = &engine.Engine{Spec: spec, Root: o.WorkDir, ConfigPath: cmdutil.Resolve(o.WorkDir, o.File), LogPath: cmdutil.Resolve(o.WorkDir, logPath), Lifecycle: lc}
	if start := rt.State(); start != "" && start != spec.Definition.InitialState {
		// Said, not silent: the run continues an earlier one.
		fmt.Fprintf(s.ErrOut, "resuming session %s from %s in state %s\n", o.SessionID, logPath, start)
	}
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
	if !temp {
		fmt.Fprintf(s.Out, "event_log: %s\n", logPath)
	}
	if !spec.Definition.IsTerminal(final) {
		return exitf(1, "")
	}
	return nil
}
