// Package full gives a hook runner what only the full hook-loop binary
// carries: the PostgreSQL store, the "store" key of the user config, and the
// user's lifecycle hooks (YAML declarations, url executors). The lean hook
// binary (cmd/hook-loop-hook) runs hooks without it and hands hooks that need
// it to hook-loop.
package full

import (
	"fmt"
	"github.com/hook-loop/hook-loop/project/identity"
	"os"
	"strings"
	"time"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/eventlog/postgres"
	"github.com/hook-loop/hook-loop/hook"
	"github.com/hook-loop/hook-loop/lifecycle"
	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/loop/session"
)

// Deps fills in what d leaves to the binary: the stores (the user config's
// store, the database) and the lifecycle hooks.
func Deps(d hook.Deps) hook.Deps {
	if d.Stores == nil {
		d.Stores = Stores{}
	}
	if d.Lifecycle == nil {
		d.Lifecycle = lifecycle.ForHook
	}
	return d
}

// Stores are the stores of hook-loop: the JSONL file and PostgreSQL.
type Stores struct{}

// URL is StoreURL.
func (Stores) URL(flag string, getenv func(string) string) (string, error) {
	return StoreURL(flag, getenv)
}

// Open opens the JSONL log at logPath, or the project's log in the database
// at url.
func (Stores) Open(url, root, logPath string, getenv func(string) string, budget time.Duration, fileOpts ...eventlog.Option) (hook.Store, error) {
	if url == "" {
		return hook.OpenFile(logPath, fileOpts...), nil
	}
	return OpenDB(url, root, getenv, budget)
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
	if v := strings.TrimSpace(getenv(hook.StoreEnv)); v != "" {
		return v, nil
	}
	return lifecycle.UserStore(getenv)
}

// OpenStore opens the log of the project at root: the JSONL file at logPath,
// or, when url is a postgres:// URL, the project's log in that database
// (project.Identity names it), waiting on it at most budget per transaction
// (0: postgres.Timeout).
func OpenStore(url, root, logPath string, getenv func(string) string, budget time.Duration, fileOpts ...eventlog.Option) (hook.Store, error) {
	return Stores{}.Open(url, root, logPath, getenv, budget, fileOpts...)
}

// OpenDB opens the project's log in the database at url, on a connection of
// its own: a hook is one process, and nothing stays running after it.
func OpenDB(url, root string, getenv func(string) string, budget time.Duration) (hook.Store, error) {
	t, err := postgres.ParseStoreURL(url)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", hook.StoreEnv, err)
	}
	if !t.IsDB() {
		return nil, fmt.Errorf("store %q: expected a postgres:// URL (the JSONL log is the default; --event-log moves it)", url)
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	s, err := postgres.Open[session.View](t.URL, postgres.Options{Project: identity.Of(root, getenv), Budget: budget})
	if err != nil {
		return nil, err
	}
	return dbStore{s}, nil
}

// dbStore keeps the session views hooks fold (loop/session) in the database.
type dbStore struct {
	s *postgres.Store[session.View, *session.View]
}

// Expect tells the store which session the hook's transaction reads
// (postgres.Store.Expect), so its first round trip fetches it.
func (d dbStore) Expect(session string) { d.s.Expect(session) }

func (d dbStore) Update(fn func(tx engine.Tx) error) error {
	return d.s.Update(func(tx *postgres.Tx[session.View, *session.View]) error { return fn(tx) })
}
func (d dbStore) Warnings() []string { return d.s.Warnings() }
func (d dbStore) Where() string      { return d.s.Where() + " (project " + d.s.Project() + ")" }
func (d dbStore) LockWait() time.Duration {
	return d.s.LockWait()
}
func (d dbStore) Close() error { return d.s.Close() }
