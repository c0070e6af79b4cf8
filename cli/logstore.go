package cli

import (
	"context"
	"github.com/hook-loop/hook-loop/project/identity"
	"os"
	"time"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/eventlog/postgres"
	"github.com/hook-loop/hook-loop/hook/full"
	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/loop/session"
	"github.com/hook-loop/hook-loop/project"
	"github.com/urfave/cli/v2"
)

// viewTx is a transaction of either log: the views and the sessions, and
// Append inside Update.
type viewTx = engine.Tx

// readLog is the event log as `status`, `log`, `log verify`, the person's
// controls, `reload` and doctor use it: the JSONL file or the project's log in
// PostgreSQL, whichever the hooks write. Update is the hooks' own exclusive
// transaction (the file's lock, or the store's per-loop advisory lock), so
// what a person does and what a hook decides never interleave.
type readLog interface {
	View(fn func(tx viewTx) error) error
	Update(fn func(tx viewTx) error) error
	Scan(warn func(string), fn func(line int, e eventlog.Event) error) error
	ScanRaw(warn func(string), fn func(line int, raw []byte, e eventlog.Event) error) error
	Verify() (eventlog.VerifyReport, error)
	Warnings() []string
	// Where names the log in messages (never with a password).
	Where() string
	// Exists is false for a JSONL log not created yet.
	Exists() (bool, error)
	// LockWait is the longest Update waits for the lock (operator.Log).
	LockWait() time.Duration
	Close() error
}

// openReadLog opens the log the project's hooks write: the file at logFlag when
// given, else the store hooks choose (full.StoreURL: storeFlag, the
// command's --store, then $HOOK_LOOP_STORE, the user config's "store"), else
// the project's JSONL file.
func openReadLog(workDir, logFlag, storeFlag string, getenv func(string) string) (readLog, error) {
	return openProjectLog(project.Root(workDir), logFlag, storeFlag, getenv)
}

// openProjectLog is openReadLog for the project at root.
func openProjectLog(root, logFlag, storeFlag string, getenv func(string) string) (readLog, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if logFlag != "" && storeFlag != "" {
		return nil, exitf(2, "usage: --event-log and --store name two different logs; give one")
	}
	if logFlag == "" {
		url, err := dbStoreURL(storeFlag, getenv)
		if err != nil {
			return nil, err
		}
		if url != "" {
			s, err := postgres.Open[session.View](url, postgres.Options{Project: identity.Of(root, getenv)})
			if err != nil {
				return nil, err
			}
			return dbLog{s}, nil
		}
		logFlag = project.FindLog(root, getenv)
	}
	return fileLog{session.Open(logFlag)}, nil
}

// dbStoreURL is the database store the hooks use (full.StoreURL: storeFlag,
// $HOOK_LOOP_STORE, the user config's "store"), "" when they keep a file.
func dbStoreURL(storeFlag string, getenv func(string) string) (string, error) {
	url, err := full.StoreURL(storeFlag, getenv)
	if err != nil || url == "" {
		return "", err
	}
	t, err := postgres.ParseStoreURL(url)
	if err != nil {
		return "", err
	}
	if !t.IsDB() {
		return "", nil
	}
	return t.URL, nil
}

type fileLog struct{ *session.Log }

func (f fileLog) View(fn func(tx viewTx) error) error {
	return f.Log.View(func(tx session.Tx) error { return fn(tx) })
}
func (f fileLog) Update(fn func(tx viewTx) error) error {
	return f.Log.Update(func(tx session.Tx) error { return fn(tx) })
}
func (f fileLog) Where() string { return f.Path() }

// Verify checks the file alone, as it always did: without a Folder, so an index
// folded another way is not what is held against the log.
func (f fileLog) Verify() (eventlog.VerifyReport, error) {
	return eventlog.Open(f.Path(), nil).Verify()
}
func (f fileLog) Close() error { return nil }
func (f fileLog) Exists() (bool, error) {
	_, err := os.Stat(f.Path())
	if os.IsNotExist(err) {
		return false, nil
	}
	return err == nil, err
}

// pgTx is a transaction of the PostgreSQL log of the loop's session views,
// as the hooks keep it (dbLog).
type pgTx = postgres.Tx[session.View, *session.View]

type dbLog struct {
	*postgres.Store[session.View, *session.View]
}

func (d dbLog) View(fn func(tx viewTx) error) error {
	return d.Store.View(func(tx *pgTx) error { return fn(tx) })
}
func (d dbLog) Update(fn func(tx viewTx) error) error {
	return d.Store.Update(func(tx *pgTx) error { return fn(tx) })
}
func (d dbLog) Where() string         { return d.Store.Where() + " (project " + d.Project() + ")" }
func (d dbLog) Exists() (bool, error) { return true, nil }

// storeFlag is --store for the commands a person runs on the hooks' log: the
// store an install's --store wrote into the hook commands, which the
// environment and the user config do not tell.
// projectLog is where a command finds a project's log and loop, when the
// defaults (the project's root, the hooks' store) are not it.
type projectLog struct {
	eventLog string
	store    string
	config   string
}

// flags are --event-log, --store and --config.
func (p *projectLog) flags() []cli.Flag {
	return []cli.Flag{eventLogFlag(&p.eventLog), storeFlag(&p.store), loopFileFlag(&p.config)}
}

// eventLogFlag is --event-log of the commands that read a project's log.
func eventLogFlag(dst *string) cli.Flag {
	return &cli.StringFlag{Name: "event-log", Usage: "event log `FILE` (default: the project's, in the user's state directory or <project>/.hook-loop)", Destination: dst}
}

// loopFileFlag is --config (alias --dsl) of the commands that read a loop file.
func loopFileFlag(dst *string) cli.Flag {
	return &cli.StringFlag{Name: "config", Aliases: []string{"dsl"}, Usage: "loop `FILE` (default: <project>/hook-loop.json)", Destination: dst}
}

func storeFlag(dst *string) cli.Flag {
	return &cli.StringFlag{Name: "store", Usage: "the hooks' PostgreSQL log, a postgres:// `URL` as given to install --store (default: $HOOK_LOOP_STORE, else \"store\" in the user config, else the JSONL file)", Destination: dst}
}

// follow streams the store's events from the start as they are committed.
func (d dbLog) follow(ctx context.Context, fn func(line int, raw []byte, e eventlog.Event) error) error {
	_, err := d.Follow(ctx, 0, fn)
	return err
}
