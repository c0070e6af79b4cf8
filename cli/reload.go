package cli

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hook-loop/hook-loop/loop/pin"
	"github.com/hook-loop/hook-loop/project"
	"github.com/urfave/cli/v2"
)

// ReloadOptions are reload's flags.
type ReloadOptions struct {
	IO      *IOStreams
	WorkDir string
	Getenv  func(string) string // nil: os.Getenv
	projectLog
	sessionID string
}

// NewCmdReload builds `reload`; runF replaces the run function in tests.
func NewCmdReload(f *Factory, runF func(*ReloadOptions) error) *cli.Command {
	opts := &ReloadOptions{}
	return &cli.Command{
		Name:      "reload",
		Usage:     "judge a running session by the loop file as it is now (a session otherwise keeps the loop it started with)",
		ArgsUsage: " ",
		Flags: append(opts.projectLog.flags(),
			&cli.StringFlag{Name: "session", Usage: "the session `ID` (default: the only live session)", Destination: &opts.sessionID},
		),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return exitf(2, "usage: reload takes no arguments (got %q)", c.Args().First())
			}
			opts.IO, opts.WorkDir, opts.Getenv = f.IOStreams, f.Cwd(), f.Getenv
			return run(runF, runReload, opts)
		},
	}
}

func runReload(o *ReloadOptions) error {
	root := project.Root(o.WorkDir)
	cfg := o.config
	if cfg == "" {
		cfg = project.ConfigPath(root)
	}
	file := pin.ReadFile(cfg)
	if file.Err != nil {
		return exitf(1, "reload: %v", file.Err)
	}
	// The log the hooks write (the store when one is configured): the re-pin
	// is what the session's next hook reads.
	log, err := openProjectLog(root, o.eventLog, o.store, o.Getenv)
	if err != nil {
		return exitf(1, "reload: %v", err)
	}
	defer log.Close()
	var sid, hash string
	err = log.Update(func(tx viewTx) error {
		var err error
		if sid, err = pickSession(tx, o.sessionID); err != nil {
			return err
		}
		hash, err = pin.Default().Reload(tx, sid, file)
		return err
	})
	if err != nil {
		if e, ok := err.(*ExitError); ok {
			return e
		}
		return exitf(1, "reload: %v", err)
	}
	fmt.Fprintf(o.IO.Out, "session %s is now judged by %s (pinned %.12s)\n", sid, cfg, hash)
	return nil
}

// pickSession is the session named, or the only live one (started, no outcome).
func pickSession(tx viewTx, want string) (string, error) {
	if want != "" {
		if !tx.Session(want).Started && tx.Session(want).Pinned == "" {
			return "", exitf(1, "reload: no session %q in the log", want)
		}
		return want, nil
	}
	var live []string
	for _, id := range tx.SessionIDs() {
		if v := tx.Session(id); v.Started && v.Outcome == "" {
			live = append(live, id)
		}
	}
	sort.Strings(live)
	switch len(live) {
	case 1:
		return live[0], nil
	case 0:
		return "", exitf(1, "reload: no live session in the log; new sessions use the loop file as it is")
	}
	return "", exitf(2, "reload: %d live sessions; name one with --session: %s", len(live), strings.Join(live, ", "))
}
