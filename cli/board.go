package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"

	"github.com/hook-loop/hook-loop/operator"

	loopdsl "github.com/hook-loop/hook-loop/loop/dsl"

	"github.com/hook-loop/hook-loop/board"
	"github.com/hook-loop/hook-loop/nudge"
	"github.com/hook-loop/hook-loop/overview"
	"github.com/hook-loop/hook-loop/project"
	"github.com/urfave/cli/v2"
)

// BoardOptions are the flags of board.
type BoardOptions struct {
	IO      *IOStreams
	WorkDir string
	Getenv  func(string) string // nil: os.Getenv
	projectLog
	addr string
	all  bool
	// ctx ends the server; nil: until Ctrl-C. ready, when set, receives the URL.
	ctx   context.Context
	ready func(url string)
}

// NewCmdBoard builds `board`; runF replaces the run function in tests.
func NewCmdBoard(f *Factory, runF func(*BoardOptions) error) *cli.Command {
	opts := &BoardOptions{}
	return &cli.Command{
		Name:      "board",
		Usage:     "serve a local web page showing every session live, with approve/reject/pause/resume/cancel buttons",
		ArgsUsage: " ",
		Description: "Listens on loopback only and prints a URL with a random token; every request\n" +
			"must carry it. Runs until Ctrl-C.",
		Flags: append(opts.projectLog.flags(),
			&cli.StringFlag{Name: "addr", Value: "127.0.0.1:0", Usage: "loopback `HOST:PORT` to listen on (port 0: a free one)", Destination: &opts.addr},
			&cli.BoolFlag{Name: "all", Usage: "every project whose hooks ran for you (and, with a store, every project in it), with nudges (hook-loop notify)", Destination: &opts.all},
		),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return exitf(2, "usage: board takes no arguments (got %q)", c.Args().First())
			}
			opts.IO, opts.WorkDir, opts.Getenv = f.IOStreams, f.Cwd(), f.Getenv
			return run(runF, runBoard, opts)
		},
	}
}

// watchedProject resolves the log and loop of the project around cwd and opens
// the live overview of its sessions. The log is the one the hooks write: the
// file at logFlag when given, else the store (HOOK_LOOP_STORE, the user
// config's "store") when one is configured, else the project's JSONL file; the
// caller closes it. A loop file that does not load is fatal only when named
// explicitly.
func watchedProject(cwd, logFlag, storeFlag, configFlag string, getenv func(string) string, errOut func(string)) (*overview.Watcher, readLog, *loopdsl.Spec, string, error) {
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	root := project.Root(cwd)
	cfg := configFlag
	if cfg == "" {
		cfg = project.ConfigPath(root)
	}
	spec, _, err := loopdsl.Load(cfg)
	if err != nil {
		if configFlag != "" {
			return nil, nil, nil, "", err
		}
		errOut(fmt.Sprintf("note: loop file not loaded (%s); showing states without the diagram or what advances them", oneLine(err.Error())))
		spec = nil
	}
	l, err := openProjectLog(root, logFlag, storeFlag, getenv)
	if err != nil {
		return nil, nil, nil, "", err
	}
	o := overview.Options{Spec: spec, Root: root}
	switch l := l.(type) {
	case fileLog:
		o.Log = l.Log
	case dbLog:
		o.Store = l.Store
	}
	w, err := overview.Open(o)
	if err != nil {
		l.Close()
		return nil, nil, nil, "", err
	}
	return w, l, spec, root, nil
}

func runBoard(o *BoardOptions) error {
	if o.all {
		return runBoardAll(o)
	}
	w, l, spec, root, err := watchedProject(o.WorkDir, o.eventLog, o.store, o.config, o.Getenv, func(s string) { fmt.Fprintln(o.IO.ErrOut, s) })
	if err != nil {
		return fmt.Errorf("board: %w", err)
	}
	defer l.Close()
	stop := func() {}
	// stop runs before the deferred l.Close: nudges look at the watcher.
	defer func() { stop() }()
	// The buttons act on the log the board shows, which is the hooks' own.
	srv, err := board.New(w, operator.Controls{Log: l, Engine: controlEngine(spec, root, o.Getenv, func(s string) { fmt.Fprintln(o.IO.ErrOut, s) })}, root)
	if err != nil {
		return err
	}
	return serveBoard(o, srv, root, func(ctx context.Context) {
		// Nudges of this project, as browser notifications on the open page
		// (desktop and webhook nudges are board --all's and notify's).
		n := &nudge.Notifier{Show: srv.Nudge}
		srv.OnChange, stop = runNudges(ctx, n, func() []nudge.Look { return []nudge.Look{{Project: root, Sessions: w.Sessions()}} })
	})
}

// serveBoard listens on --addr, prints the board's URL for what, and serves
// until Ctrl-C (or o.ctx); started, when set, runs first with the context.
func serveBoard(o *BoardOptions, srv *board.Server, what string, started func(ctx context.Context)) error {
	ln, err := board.Listen(o.addr)
	if err != nil {
		return fmt.Errorf("board: %w", err)
	}
	ctx, stop := untilInterrupt(o.ctx)
	defer stop()
	if started != nil {
		started(ctx)
	}
	url := srv.URL(ln)
	fmt.Fprintf(o.IO.Out, "hook-loop board for %s\n  %s\n(Ctrl-C to stop)\n", what, url)
	if o.ready != nil {
		o.ready(url)
	}
	if err := srv.Serve(ctx, ln); err != nil {
		return fmt.Errorf("board: %w", err)
	}
	return nil
}

// untilInterrupt is ctx, or when nil a context that ends on Ctrl-C: what the
// commands that run until stopped (board, log --follow, status --watch) wait on.
func untilInterrupt(ctx context.Context) (context.Context, context.CancelFunc) {
	if ctx != nil {
		return ctx, func() {}
	}
	return signal.NotifyContext(context.Background(), os.Interrupt)
}
