package full_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/eventlog/postgres"
	"github.com/hook-loop/hook-loop/hook/full"
)

// A hook sets aside its store's own lock wait for the passes still to come:
// the file's lock timeout as it was opened (SessionEnd's shorter one), the
// database's budget (all of an Update's waits, its lock's included). Opening
// does no I/O, so no database is needed.
func TestStoresSayTheirLockWait(t *testing.T) {
	t.Setenv(eventlog.LockTimeoutEnv, "3s")
	root := t.TempDir()
	getenv := func(string) string { return "" }
	log := filepath.Join(root, ".hook-loop", "events.jsonl")
	for _, c := range []struct {
		name   string
		url    string
		budget time.Duration
		opts   []eventlog.Option
		want   time.Duration
	}{
		{"file", "", 0, nil, 3 * time.Second},
		{"file opened to wait less", "", 0, []eventlog.Option{eventlog.WithLockTimeout(time.Second)}, time.Second},
		{"database", "postgres://hook@127.0.0.1:1/loops", 1500 * time.Millisecond, nil, 1500 * time.Millisecond},
		{"database, no budget", "postgres://hook@127.0.0.1:1/loops", 0, nil, postgres.Timeout},
	} {
		s, err := full.OpenStore(c.url, root, log, getenv, c.budget, c.opts...)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := s.LockWait(); got != c.want {
			t.Errorf("%s: LockWait %v, want %v", c.name, got, c.want)
		}
		s.Close()
	}
}
