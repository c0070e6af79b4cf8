// Package full gives a hook run what only the full hook-loop binary carries:
// the PostgreSQL store (with the per-user connection keeper), the "store" key
// of the user config, and the user's lifecycle hooks (YAML declarations, url
// executors). The lean hook binary (cmd/hook-loop-hook) runs hookrun without
// it and hands hooks that need it to hook-loop.
package full

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/eventlog/postgres"
	"github.com/hook-loop/hook-loop/internal/hookrun"
	"github.com/hook-loop/hook-loop/internal/pgkeeper"
	"github.com/hook-loop/hook-loop/lifecycle"
	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/project"
)

// With fills in what o leaves to the binary: the user config's store, the
// database store and the lifecycle hooks.
func With(o hookrun.Options) hookrun.Options {
	if o.StoreURL == nil {
		o.StoreURL = StoreURL
	}
	if o.OpenDB == nil {
		o.OpenDB = OpenDB
	}
	if o.LoadLifecycle == nil {
		o.LoadLifecycle = lifecycle.ForHook
	}
	return o
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
	if v := strings.TrimSpace(getenv(hookrun.StoreEnv)); v != "" {
		return v, nil
	}
	return lifecycle.UserStore(getenv)
}

// OpenStore opens the log of the project at root: the JSONL file at logPath,
// or, when url is a postgres:// URL, the project's log in that database
// (project.Identity names it), waiting on it at most budget per transaction
// (0: postgres.Timeout).
func OpenStore(url, root, logPath string, getenv func(string) string, budget time.Duration, fileOpts ...eventlog.Option) (hookrun.Store, error) {
	return hookrun.OpenStore(url, root, logPath, getenv, budget, OpenDB, fileOpts...)
}

// OpenDB opens the project's log in the database at url, with a warm
// connection from the user's connection keeper when it has one.
func OpenDB(url, root string, getenv func(string) string, budget time.Duration) (hookrun.Store, error) {
	return openDB(url, root, getenv, budget, nil)
}

// OpenDBWith is OpenDB borrowing from lender instead of the keeper: a
// long-lived process (the hook server) keeps its own connections.
func OpenDBWith(lender postgres.Lender) hookrun.OpenDB {
	return func(url, root string, getenv func(string) string, budget time.Duration) (hookrun.Store, error) {
		return openDB(url, root, getenv, budget, lender)
	}
}

func openDB(url, root string, getenv func(string) string, budget time.Duration, lender postgres.Lender) (hookrun.Store, error) {
	t, err := postgres.ParseStoreURL(url)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", hookrun.StoreEnv, err)
	}
	if !t.IsDB() {
		return nil, fmt.Errorf("store %q: expected a postgres:// URL (the JSONL log is the default; --event-log moves it)", url)
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	o := postgres.Options{Project: project.Identity(root, getenv), Budget: budget, Lender: lender}
	if lender == nil {
		if k := keeper(getenv); k != nil {
			o.Lender = k
		}
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

type dbStore struct{ s *postgres.Store }

// Expect tells the store which session the hook's transaction reads
// (postgres.Store.Expect), so its first round trip fetches it.
func (d dbStore) Expect(session string) { d.s.Expect(session) }

func (d dbStore) Update(fn func(tx engine.Tx) error) error {
	return d.s.Update(func(tx *postgres.Tx) error { return fn(tx) })
}
func (d dbStore) Warnings() []string { return d.s.Warnings() }
func (d dbStore) Where() string      { return d.s.Where() + " (project " + d.s.Project() + ")" }
func (d dbStore) Close() error       { return d.s.Close() }
