package hook

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/loop/session"
	"github.com/hook-loop/hook-loop/project/userconfig"
)

// StoreEnv chooses where hooks keep the loop's log: a postgres:// URL (the
// password from PGPASSWORD or ~/.pgpass), or unset for the JSONL file.
const StoreEnv = "HOOK_LOOP_STORE"

// StoreTimeout bounds a hook's whole wait on a database store (connecting,
// the loop's lock, reads, committing) outside a SessionEnd; it is
// postgres.Timeout, kept here so that this package need not link the driver.
const StoreTimeout = 5 * time.Second

// Store is where a hook's loop keeps its log: the JSONL file beside the
// project or a PostgreSQL database shared by several machines. The engine sees
// either through engine.Tx.
type Store interface {
	Update(fn func(tx engine.Tx) error) error
	Warnings() []string
	// Where names the log for messages (never with a password).
	Where() string
	// LockWait is the longest one Update waits for the log's lock before it
	// fails: the file's lock timeout, the database's budget. A hook sets it
	// aside for every transaction still to come (engine.Passes).
	LockWait() time.Duration
	Close() error
}

// Stores resolves where a hook's log is kept and opens it.
type Stores interface {
	// URL is the store a hook with --store flag uses: a database URL, or ""
	// for the JSONL file.
	URL(flag string, getenv func(string) string) (string, error)
	// Open opens the log of the project at root: the JSONL file at logPath
	// when url is "", else the project's log in that database, waiting on it
	// at most budget per transaction. fileOpts apply to the JSONL file.
	Open(url, root, logPath string, getenv func(string) string, budget time.Duration, fileOpts ...eventlog.Option) (Store, error)
}

// LeanStores are the stores of the lean hook binary: the JSONL file only.
type LeanStores struct{}

// URL is LeanStoreURL.
func (LeanStores) URL(flag string, getenv func(string) string) (string, error) {
	return LeanStoreURL(flag, getenv)
}

// Open opens the JSONL log; a database URL is refused, since this binary
// has no driver.
func (LeanStores) Open(url, root, logPath string, getenv func(string) string, budget time.Duration, fileOpts ...eventlog.Option) (Store, error) {
	if url != "" {
		return nil, fmt.Errorf("store %s: this hook binary has no PostgreSQL driver; run the hook with hook-loop", redactUserinfo(url))
	}
	return OpenFile(logPath, fileOpts...), nil
}

// OpenFile opens the JSONL log at path as a Store.
func OpenFile(path string, opts ...eventlog.Option) Store {
	return fileStore{session.Open(path, opts...)}
}

// LeanStoreURL is the store a hook uses when it cannot read the user config:
// the flag (install --store), else $HOOK_LOOP_STORE, else the JSONL file ("").
// A user config that a hook would read is an error here, since its "store"
// key may name a database: the lean hook binary hands such hooks to hook-loop
// before it gets this far (cmd/hook-loop-hook).
func LeanStoreURL(flag string, getenv func(string) string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	if v := strings.TrimSpace(getenv(StoreEnv)); v != "" {
		return v, nil
	}
	if userconfig.Present("", getenv) {
		path, _ := userconfig.Path("", getenv)
		return "", fmt.Errorf("user config %s: only hook-loop reads it (its \"store\" may name a database), and this hook binary runs without it", path)
	}
	return "", nil
}

// redactUserinfo drops anything between the scheme and "@", so a URL with a
// password is never echoed.
func redactUserinfo(url string) string {
	scheme, rest, ok := strings.Cut(url, "://")
	if !ok {
		return "(unparsed URL)"
	}
	if _, host, ok := strings.Cut(rest, "@"); ok {
		rest = host
	}
	return scheme + "://" + rest
}

// NoLifecycle is how a hook binary without lifecycle support loads the
// declaration: none when the user has none, else a load failure that is
// logged and shown (hooks.load_failed), as for a declaration that does not
// load, so the hooks are never skipped silently.
func NoLifecycle(path string) (engine.Lifecycle, *engine.LifecycleRecord) {
	if !userconfig.Present(path, os.Getenv) {
		return nil, nil
	}
	file, _ := userconfig.Path(path, os.Getenv)
	return nil, &engine.LifecycleRecord{Type: session.TypeHooksLoadFailed, Payload: map[string]any{
		"why": fmt.Sprintf("hooks config %s: lifecycle hooks run only under hook-loop, and this hook binary runs without them", file)}}
}

type fileStore struct{ l *session.Log }

func (f fileStore) Update(fn func(tx engine.Tx) error) error {
	return f.l.Update(func(tx session.Tx) error { return fn(tx) })
}
func (f fileStore) Warnings() []string { return f.l.Warnings() }
func (f fileStore) Where() string      { return f.l.Path() }
func (f fileStore) LockWait() time.Duration {
	return f.l.LockWait()
}
func (f fileStore) Close() error { return nil }

// expect tells a database store which session the hook's transaction reads
// (postgres.Store.Expect); the file store needs no hint.
func expect(s Store, session string) {
	if e, ok := s.(interface{ Expect(string) }); ok {
		e.Expect(session)
	}
}
