package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/engine"
	"os"
	"text/tabwriter"

	"github.com/hook-loop/hook-loop/board"
	"github.com/hook-loop/hook-loop/fleet"
	"github.com/hook-loop/hook-loop/nudge"
	"github.com/hook-loop/hook-loop/project"
	"github.com/urfave/cli/v2"
)

// openFleet opens every project whose hooks ran for the user (the registry
// in the user state directory) and, when a store is configured (storeFlag,
// $HOOK_LOOP_STORE, the user config's "store"), every project in it.
// controls, when set, builds the engine each project's controls act with.
func openFleet(storeFlag string, getenv func(string) string, controls func(*dsl.Spec, string) *engine.Engine) (*fleet.Fleet, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	url, err := dbStoreURL(storeFlag, getenv)
	if err != nil {
		return nil, err
	}
	return fleet.Open(fleet.Options{StateDir: project.UserStateDir(getenv), StoreURL: url, Getenv: getenv, Engine: controls})
}

// liveLine is one line of status --all.
type liveLine struct {
	Project    string `json:"project"`
	Machine    string `json:"machine,omitempty"`
	Checkout   string `json:"checkout,omitempty"`
	Session    string `json:"session_id"`
	Harness    string `json:"harness,omitempty"`
	State      string `json:"state"`
	Waiting    bool   `json:"waiting"`
	StopBlocks int    `json:"stop_blocks"`
	Paused     bool   `json:"paused,omitempty"`
	LastEvent  string `json:"last_event_at,omitempty"`
}

// statusAll prints one line per live session (no outcome yet) of every
// project: those waiting for the person first.
func statusAll(o *StatusOptions) error {
	f, err := openFleet(o.store, o.Getenv, nil)
	if err != nil {
		return fmt.Errorf("status --all: %w", err)
	}
	defer f.Close()
	for _, w := range f.Warnings() {
		fmt.Fprintln(o.IO.ErrOut, "warning: "+w)
	}
	var waiting, rest []liveLine
	for _, p := range f.Projects() {
		for _, s := range p.Watcher.Sessions() {
			if s.Outcome != "" || s.Terminal {
				continue
			}
			l := liveLine{Project: p.Name, Machine: s.Machine, Checkout: s.Checkout, Session: s.ID, Harness: s.Harness,
				State: s.State, Waiting: s.Waiting, StopBlocks: s.StopBlocks, Paused: s.Paused, LastEvent: s.LastEventAt}
			if s.Waiting {
				waiting = append(waiting, l)
			} else {
				rest = append(rest, l)
			}
		}
	}
	lines := append(waiting, rest...)
	if o.json {
		enc := json.NewEncoder(o.IO.Out)
		enc.SetIndent("", "  ")
		if lines == nil {
			lines = []liveLine{}
		}
		return enc.Encode(lines)
	}
	if len(lines) == 0 {
		fmt.Fprintf(o.IO.ErrOut, "no live sessions in %d project(s)\n", len(f.Projects()))
		return nil
	}
	tw := tabwriter.NewWriter(o.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PROJECT\tSESSION\tHARNESS\tSTATE\tWAITING\tREFUSED STOPS\tLAST EVENT")
	for _, l := range lines {
		proj := l.Project
		if l.Machine != "" && l.Checkout != "" && l.Checkout != l.Project {
			proj += " (" + l.Machine + ":" + l.Checkout + ")"
		}
		wait := "-"
		if l.Waiting {
			wait = "YES"
		}
		state := l.State
		if l.Paused {
			state += " (paused)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", proj, l.Session, orDash(l.Harness), state, wait, l.StopBlocks, orDash(l.LastEvent))
	}
	return tw.Flush()
}

// runBoardAll is board --all: every project's sessions, with nudges while open.
func runBoardAll(o *BoardOptions) error {
	cfg, err := nudge.LoadConfig(o.Getenv)
	if err != nil {
		return fmt.Errorf("board: %w", err)
	}
	f, err := openFleet(o.store, o.Getenv, func(spec *dsl.Spec, root string) *engine.Engine {
		// The buttons run the person's lifecycle hooks, as the one-project board does.
		return controlEngine(spec, root, o.Getenv, func(s string) { fmt.Fprintln(o.IO.ErrOut, s) })
	})
	if err != nil {
		return fmt.Errorf("board --all: %w", err)
	}
	defer f.Close()
	srv, err := board.NewAll(f)
	if err != nil {
		return err
	}
	stop := func() {}
	// stop runs before the deferred f.Close: nudges look at the fleet.
	defer func() { stop() }()
	return serveBoard(o, srv, fmt.Sprintf("%d project(s)", len(f.Projects())), func(ctx context.Context) {
		n := &nudge.Notifier{Config: cfg, Senders: cfg.Senders(nil), Show: srv.Nudge, Log: o.IO.ErrOut}
		srv.OnChange, stop = runNudges(ctx, n, func() []nudge.Look { return looks(f) })
	})
}

// runNudges primes n with look() as things stand, then runs it until ctx
// ends or stop is called; wake wakes it after a change. stop returns once it
// has stopped, so no Check (and no look at the fleet) runs after the caller
// returns and closes what look reads.
func runNudges(ctx context.Context, n *nudge.Notifier, look func() []nudge.Look) (wake, stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	ch := make(chan struct{}, 1)
	done := make(chan struct{})
	n.Prime(look())
	go func() {
		defer close(done)
		n.Run(ctx, ch, look)
	}()
	wake = func() {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	stop = func() {
		cancel()
		<-done
	}
	return wake, stop
}

func looks(f *fleet.Fleet) []nudge.Look {
	var out []nudge.Look
	for _, p := range f.Projects() {
		out = append(out, nudge.Look{Project: p.Name, Sessions: p.Watcher.Sessions()})
	}
	return out
}

// NotifyOptions are the flags of notify.
type NotifyOptions struct {
	IO     *IOStreams
	Getenv func(string) string // nil: os.Getenv
	store  string
	// ctx ends the watcher; nil: until Ctrl-C. ready, when set, is called
	// once it watches.
	ctx      context.Context
	ready    func()
	lookPath func(string) (string, error)
}

// NewCmdNotify builds `notify`; runF replaces the run function in tests.
func NewCmdNotify(f *Factory, runF func(*NotifyOptions) error) *cli.Command {
	opts := &NotifyOptions{}
	return &cli.Command{
		Name:      "notify",
		Usage:     "nudge you (desktop notification, webhook) when a session of any project waits for you, is refused stops, paused, cancelled or ends",
		ArgsUsage: " ",
		Description: "Watches every project whose hooks ran for you (and, with a store, every project in it)\n" +
			"until Ctrl-C; configured by \"notify\" in the user config. Runs well as a user service\n" +
			"(docs/watch.md shows a systemd user unit and a launchd agent).",
		Flags: []cli.Flag{storeFlag(&opts.store)},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return exitf(2, "usage: notify takes no arguments (got %q)", c.Args().First())
			}
			opts.IO, opts.Getenv = f.IOStreams, f.Getenv
			return run(runF, runNotify, opts)
		},
	}
}

func runNotify(o *NotifyOptions) error {
	cfg, err := nudge.LoadConfig(o.Getenv)
	if err != nil {
		return fmt.Errorf("notify: %w", err)
	}
	f, err := openFleet(o.store, o.Getenv, nil)
	if err != nil {
		return fmt.Errorf("notify: %w", err)
	}
	defer f.Close()
	senders := cfg.Senders(o.lookPath)
	names := "nowhere: no desktop notifier found and no webhook configured"
	for i, s := range senders {
		if i == 0 {
			names = ""
		} else {
			names += ", "
		}
		names += s.Name()
	}
	fmt.Fprintf(o.IO.ErrOut, "hook-loop notify: watching %d project(s); nudges go to %s\n", len(f.Projects()), names)
	ctx, stop := untilInterrupt(o.ctx)
	defer stop()
	n := &nudge.Notifier{Config: cfg, Senders: senders, Log: o.IO.Out}
	wake, stopNudges := runNudges(ctx, n, func() []nudge.Look { return looks(f) })
	// Stopped before the deferred f.Close: a Check looks at the fleet.
	defer stopNudges()
	if o.ready != nil {
		o.ready()
	}
	return f.Run(ctx, wake)
}
