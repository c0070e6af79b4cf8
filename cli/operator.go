package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/hook-loop/hook-loop/lifecycle"
	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/operator"
	"github.com/urfave/cli/v2"
)

// OperatorOptions are the flags of the person's controls (pause, resume,
// cancel, approve, reject, advance, reset).
type OperatorOptions struct {
	IO      *IOStreams
	WorkDir string
	Getenv  func(string) string // nil: os.Getenv
	Action  string
	Event   string // advance's loop event
	projectLog
	sessionID string
	reason    string
	force     bool
	ctx       context.Context
}

// controlUsage is each control's one line in help.
var controlUsage = map[string]string{
	operator.Pause:   "pause a session: its tool calls are refused until resume (it may stop)",
	operator.Resume:  "lift a person's pause",
	operator.Cancel:  "take a session out of the loop: nothing is gated any more, outcome cancelled",
	operator.Approve: "approve a session waiting for a person (applies the state's loop.approval approve event)",
	operator.Reject:  "reject a session waiting for a person (applies the state's loop.approval reject event)",
	operator.Advance: "apply a loop event to a session by hand (guards checked unless --force)",
	operator.Reset:   "return a session to the loop's initial state",
}

// NewCmdOperator builds the control command for action (one of
// operator.Actions); runF replaces the run function in tests.
func NewCmdOperator(f *Factory, action string, runF func(*OperatorOptions) error) *cli.Command {
	opts := &OperatorOptions{Action: action}
	flags := []cli.Flag{
		&cli.StringFlag{Name: "session", Usage: "session `ID` (default: the only live session)", Destination: &opts.sessionID},
		&cli.StringFlag{Name: "reason", Usage: "why, recorded in the log (and, for pause, told to the agent)", Destination: &opts.reason},
	}
	flags = append(flags, opts.projectLog.flags()...)
	args := " "
	if action == operator.Advance {
		flags = append(flags, &cli.BoolFlag{Name: "force", Usage: "apply the event even when its guards are not met (recorded as forced)", Destination: &opts.force})
		args = "EVENT"
	}
	return &cli.Command{
		Name:      action,
		Usage:     controlUsage[action],
		ArgsUsage: args,
		Description: "A person's control, recorded in the event log with actor \"person\"; the session's\n" +
			"next hook honours it. Exit status: 0 done, 1 refused by the session's state, 2 usage\n" +
			"(including no --session when several sessions are live).",
		Flags: flags,
		Action: func(c *cli.Context) error {
			want := 0
			if action == operator.Advance {
				want = 1
			}
			if c.NArg() != want {
				if want == 1 {
					return exitf(2, "usage: advance takes one loop event (got %d arguments)", c.NArg())
				}
				return exitf(2, "usage: %s takes no arguments (got %q)", action, c.Args().First())
			}
			opts.Event = c.Args().First()
			opts.IO, opts.WorkDir, opts.Getenv, opts.ctx = f.IOStreams, f.Cwd(), f.Getenv, c.Context
			return run(runF, runOperator, opts)
		},
	}
}

func runOperator(o *OperatorOptions) error {
	root, _, cfg := projectFiles(o.WorkDir, o.eventLog, o.config, o.Getenv)
	// The log the hooks write (the store when one is configured), so the
	// person's action takes the lock the hooks take.
	log, err := openProjectLog(root, o.eventLog, o.store, o.Getenv)
	if err != nil {
		return fmt.Errorf("%s: %w", o.Action, err)
	}
	defer log.Close()
	if ok, err := log.Exists(); err != nil {
		return fmt.Errorf("%s: %w", o.Action, err)
	} else if !ok {
		return exitf(1, "%s: no sessions (no event log at %s)", o.Action, log.Where())
	}
	spec, _, err := dsl.Load(cfg)
	if err != nil {
		return fmt.Errorf("%s: %w", o.Action, err)
	}
	ctl := operator.Controls{Log: log, Engine: controlEngine(spec, root, o.Getenv, func(s string) { fmt.Fprintln(o.IO.ErrOut, s) })}
	sid := o.sessionID
	if sid == "" {
		if sid, err = onlyLiveSession(o.IO, ctl, o.Action); err != nil {
			return err
		}
	}
	res, err := ctl.Apply(o.ctx, operator.Request{Action: o.Action, Session: sid, Reason: o.reason,
		Event: o.Event, Force: o.force, Source: "cli"})
	if errors.Is(err, operator.ErrRefused) {
		return exitf(1, "%s: %s", o.Action, oneLine(err.Error()))
	}
	if err != nil {
		return fmt.Errorf("%s: %w", o.Action, err)
	}
	fmt.Fprintln(o.IO.Out, describeControl(o, sid, res))
	return nil
}

// onlyLiveSession is the session a control acts on when none is named.
func onlyLiveSession(io *IOStreams, ctl operator.Controls, action string) (string, error) {
	var live []string
	var states []string
	err := ctl.Log.View(func(tx engine.Tx) error {
		live = ctl.Live(tx)
		for _, id := range live {
			states = append(states, fmt.Sprintf("  %s  (state %s, last event %s)", id, tx.Session(id).State, tx.Session(id).LastTimestamp))
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("%s: %w", action, err)
	}
	switch len(live) {
	case 1:
		return live[0], nil
	case 0:
		return "", exitf(1, "%s: no live session (give --session ID; hook-loop status lists them all)", action)
	}
	// The list goes first: errors print as one line.
	fmt.Fprintf(io.ErrOut, "live sessions:\n%s\n", strings.Join(states, "\n"))
	return "", exitf(2, "%s: %d live sessions; choose one with --session ID", action, len(live))
}

func describeControl(o *OperatorOptions, sid string, r operator.Result) string {
	switch o.Action {
	case operator.Pause:
		return "paused session " + sid + ": its tool calls are refused until hook-loop resume"
	case operator.Resume:
		return "resumed session " + sid
	case operator.Cancel:
		return "cancelled session " + sid + ": it is no longer gated (outcome cancelled)"
	case operator.Reset:
		return fmt.Sprintf("reset session %s: %s → %s", sid, r.From, r.To)
	}
	s := fmt.Sprintf("%s session %s: %s → %s", pastTense(o.Action), sid, r.From, r.To)
	if o.force {
		s += " (forced)"
	}
	if r.Outcome != "" {
		s += " (outcome " + r.Outcome + ")"
	}
	return s
}

func pastTense(action string) string {
	switch action {
	case operator.Approve:
		return "approved"
	case operator.Reject:
		return "rejected"
	}
	return "advanced"
}

// controlEngine is the engine a person's controls drive (nil without a loop),
// with the user's lifecycle hooks: the controls reach them as a hook's events
// do. A declaration that does not load is told (warn) and the controls run
// without it, as a one-shot hook does.
func controlEngine(spec *dsl.Spec, root string, getenv func(string) string, warn func(string)) *engine.Engine {
	if spec == nil {
		return nil
	}
	e := &engine.Engine{Spec: spec, Root: root}
	if getenv == nil {
		getenv = os.Getenv
	}
	r, _, err := lifecycle.LoadConfig("", getenv)
	switch {
	case err != nil:
		warn("hook-loop: warning: lifecycle hooks did not load, so the control runs without them: " + oneLine(err.Error()))
	case len(r.Entries()) > 0:
		e.Lifecycle = r
		if rec := r.Check(); rec != nil {
			warn(fmt.Sprintf("hook-loop: warning: lifecycle hooks did not load, so they do not run (a required one refuses): %v", rec.Payload["why"]))
		}
	}
	return e
}
