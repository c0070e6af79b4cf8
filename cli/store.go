package cli

import (
	"context"
	"errors"
	"fmt"
	"github.com/hook-loop/hook-loop/project/identity"
	"os"

	"github.com/hook-loop/hook-loop/eventlog/postgres"
	"github.com/hook-loop/hook-loop/hook"
	"github.com/hook-loop/hook-loop/hook/full"
	"github.com/hook-loop/hook-loop/loop/session"
	"github.com/hook-loop/hook-loop/project"
	"github.com/urfave/cli/v2"
)

// storeEnv chooses the event store of hooks (full.StoreURL).
const storeEnv = hook.StoreEnv

// StoreMigrateOptions are the flags of store migrate.
type StoreMigrateOptions struct {
	IO       *IOStreams
	WorkDir  string
	Getenv   func(string) string
	to       string
	from     string
	eventLog string
	ctx      context.Context
}

// NewCmdStore builds `store` and `store migrate`; runF replaces the run function in tests.
func NewCmdStore(f *Factory, runF func(*StoreMigrateOptions) error) *cli.Command {
	o := &StoreMigrateOptions{}
	return &cli.Command{
		Name:  "store",
		Usage: "manage where the event log is kept (a JSONL file or PostgreSQL)",
		Subcommands: []*cli.Command{{
			Name:      "migrate",
			Usage:     "copy the event log into PostgreSQL (--to URL) or back into a file (--to FILE)",
			ArgsUsage: " ",
			Description: "Copies line for line, so every event id and hash chain survives, and verifies\n" +
				"the chains of both sides. Running it again copies only what is new. A destination\n" +
				"holding events the source does not have (diverged) is refused and left as it was.\n" +
				"The project's identity in the database is its git origin remote (or its folder;\n" +
				"$HOOK_LOOP_PROJECT overrides). The password comes from PGPASSWORD or ~/.pgpass.",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "to", Usage: "destination: a postgres:// `URL` or a JSONL FILE", Required: true, Destination: &o.to},
				&cli.StringFlag{Name: "from", Usage: "source `URL` or FILE (default: the project's log file for --to URL, the hooks' store for --to FILE: $HOOK_LOOP_STORE or the user config's \"store\")", Destination: &o.from},
				&cli.StringFlag{Name: "event-log", Usage: "the project's log `FILE` (default: the project's, in the user's state directory or <project>/.hook-loop)", Destination: &o.eventLog},
			},
			Action: func(c *cli.Context) error {
				if c.NArg() > 0 {
					return exitf(2, "usage: store migrate takes no arguments (got %q)", c.Args().First())
				}
				o.IO, o.WorkDir, o.Getenv, o.ctx = f.IOStreams, f.Cwd(), f.Getenv, c.Context
				return run(runF, runStoreMigrate, o)
			},
		}},
	}
}

func runStoreMigrate(o *StoreMigrateOptions) error {
	ctx := o.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	root := project.Root(o.WorkDir)
	to, err := postgres.ParseStoreURL(o.to)
	if err != nil {
		return exitf(2, "usage: --to: %v", err)
	}
	from := o.from
	switch {
	case from != "":
	case to.IsDB() && o.eventLog != "":
		from = o.eventLog
	case to.IsDB():
		from = project.FindLog(root, o.Getenv)
	default:
		if from, err = full.StoreURL("", o.Getenv); err != nil {
			return err
		}
		if from == "" {
			return exitf(2, "usage: --to FILE copies from a database: give --from URL or set %s", storeEnv)
		}
	}
	src, err := postgres.ParseStoreURL(from)
	if err != nil {
		return exitf(2, "usage: --from: %v", err)
	}
	if !src.IsDB() && !to.IsDB() {
		return exitf(2, "usage: store migrate copies between a file and a database; both %s and %s are files", src, to)
	}
	if !src.IsDB() {
		if _, err := os.Stat(src.Path); err != nil {
			return exitf(1, "store migrate: no event log at %s", src.Path)
		}
	}
	opts := postgres.Options{Project: identity.Of(root, o.Getenv)}
	rep, err := postgres.Migrate[session.View](ctx, src, to, opts)
	var refusal *postgres.Refusal
	if errors.As(err, &refusal) {
		return exitf(1, "%v", err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(o.IO.Out, "copied %s to %s (%d of %d were there already) for project %s; chains verified\n",
		count(rep.Copied, "event"), rep.Dest, rep.Present, rep.Events, opts.Project)
	return nil
}
