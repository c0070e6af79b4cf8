package hookrun

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/eventlog/postgres"
	"github.com/hook-loop/hook-loop/internal/pgkeeper"
	"github.com/hook-loop/hook-loop/internal/project"
	"github.com/hook-loop/hook-loop/lifecycle"
	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/loop/session"
)

// StoreEnv chooses where hooks keep the loop's log: a postgres:// URL (the
// password from PGPASSWORD or ~/.pgpass), or unset for the JSONL file.
const StoreEnv = "HOOK_LOOP_STORE"

// Store is where a hook's loop keeps its log: the JSONL file beside the
// project or a PostgreSQL database shared by several machines. The engine sees
// either through engine.Tx.
type Store interface {
	Update(fn func(tx engine.Tx) error) error
	Warnings() []string
	// Where names the log for messages (never with a password).
	Where() string
	Close() error
}

// StoreURL is the store hooks use: flag (install --store) first, else
// $HOOK_LOOP_STORE, else "store" in the user config (lifecycle.UserStore); ""
// is the JSONL file.
func StoreURL(flag string, getenv func(string) string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	if v := strings.TrimSpace(getenv(StoreEnv)); v != "" {
		return v, nil
	}
	return lifecycle.UserStore(getenv)
}

// OpenStore opens the log of the project at root: the JSONL file at logPath,
// or, when url is a postgres:// URL, the project's log in that database
// (project.Identity names it), waiting on it at most budget per transaction
// (postgres.Options.Budget; 0: postgres.Timeout).
func OpenStore(url, root, logPath string, getenv func(string) string, budget time.Duration, fileOpts ...eventlog.Option) (Store, error) {
	if url == "" {
		return fileStore{session.Open(logPath, fileOpts...)}, nil
	}
	t, err := postgres.ParseStoreURL(url)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", StoreEnv, err)
	}
	if !t.IsDB() {
		return nil, fmt.Errorf("store %q: expected a postgres:// URL (the JSONL log is the default; --event-log moves it)", url)
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	o := postgres.Options{Project: project.Identity(root, getenv), Budget: budget}
	if k := keeper(getenv); k != nil {
		o.Lender = k
	}
	s, err := postgres.Open(t.URL, o)
	if err != nil {
		return nil, err
	}
	return dbStore{s}, nil
}

// keeper is the client of the user's connection keeper (internal/pgkeeper),
// which spares a hook a new PostgreSQL connection; nil when it is turned off.
func keeper(getenv func(string) string) *pgkeeper.Client {
	dir := getenv(eventlog.StateDirEnv)
	if dir == "" {
		dir = eventlog.StateDir()
	}
	return pgkeeper.New(dir, getenv)
}

type fileStore struct{ l *session.Log }

func (f fileStore) Update(fn func(tx engine.Tx) error) error {
	return f.l.Update(func(tx session.Tx) error { return fn(tx) })
}
func (f fileStore) Warnings() []string { return f.l.Warnings() }
func (f fileStore) Where() string      { return f.l.Path() }
func (f fileStore) Close() error       { return nil }

type dbStore struct{ s *postgres.Store }

// expect tells a database store which session the hook's transaction reads
// (postgres.Store.Expect); the file store needs no hint.
func expect(s Store, session string) {
	if d, ok := s.(dbStore); ok {
		d.s.Expect(session)
	}
}

func (d dbStore) Update(fn func(tx engine.Tx) error) error {
	return d.s.Update(func(tx *postgres.Tx) error { return fn(tx) })
}
func (d dbStore) Warnings() []string { return d.s.Warnings() }
func (d dbStore) Where() string      { return d.s.Where() + " (project " + d.s.Project() + ")" }
func (d dbStore) Close() error       { return d.s.Close() }
