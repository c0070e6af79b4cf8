package eventlog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hook-loop/hook-loop/project/regfile"

	"github.com/gofrs/flock"
)

// DefaultLockTimeout bounds every wait for the log's lock: a hook must answer
// (as fail_closed says) well inside the harness's hook timeout, even when
// something holds the lock forever (`flock events.jsonl.lock sleep 1e6`).
const DefaultLockTimeout = 5 * time.Second

// MaxLockTimeout caps HOOK_LOOP_LOCK_TIMEOUT: a hook that waited longer would
// be killed by its harness (30 s as installed) before it answered, and a killed
// hook lets the agent proceed.
const MaxLockTimeout = 15 * time.Second

// LockTimeoutEnv overrides DefaultLockTimeout: a Go duration ("2s", "500ms").
const LockTimeoutEnv = "HOOK_LOOP_LOCK_TIMEOUT"

// ErrLockTimeout is what Update (and Verify's index read) return, wrapped in a
// *LockTimeoutError, when the lock stayed taken for the whole timeout.
var ErrLockTimeout = errors.New("event log lock timeout")

// LockTimeoutError says which lock was held and how long hook-loop waited.
type LockTimeoutError struct {
	Path   string
	Waited time.Duration
}

func (e *LockTimeoutError) Error() string {
	return fmt.Sprintf("lock %s: still held by another process after %s (a hook-loop run that hung, or a process holding it on purpose; %s sets the wait)", e.Path, e.Waited, LockTimeoutEnv)
}

// Is makes errors.Is(err, ErrLockTimeout) true.
func (e *LockTimeoutError) Is(target error) bool { return target == ErrLockTimeout }

// Option configures a Log.
type Option func(*Log)

// WithLockTimeout sets how long Update and View wait for the lock (d ≤ 0: the
// default). It wins over HOOK_LOOP_LOCK_TIMEOUT.
func WithLockTimeout(d time.Duration) Option {
	return func(l *Log) {
		if d > 0 {
			l.lockTimeout = d
		}
	}
}

// LockWait is how long this log's Update and View wait for its lock: the
// WithLockTimeout it was opened with, else LockTimeout.
func (l *Log) LockWait() time.Duration { return l.lockTimeout }

// LockTimeout is how long a log opened without WithLockTimeout waits for its
// lock: HOOK_LOOP_LOCK_TIMEOUT, else DefaultLockTimeout.
func LockTimeout() time.Duration {
	d, _ := lockTimeoutFromEnv()
	return d
}

// lockTimeout is the timeout from the environment, else the default. A value
// that does not parse is a mistake worth seeing, but not worth a refused hook:
// the default applies and the log warns.
func lockTimeoutFromEnv() (time.Duration, string) {
	v := strings.TrimSpace(os.Getenv(LockTimeoutEnv))
	if v == "" {
		return DefaultLockTimeout, ""
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		if n, nerr := strconv.ParseFloat(v, 64); nerr == nil {
			d, err = time.Duration(n*float64(time.Second)), nil
		}
	}
	if err != nil || d <= 0 {
		return DefaultLockTimeout, fmt.Sprintf("%s=%q: expected a duration like 5s; waiting %s", LockTimeoutEnv, v, DefaultLockTimeout)
	}
	if d > MaxLockTimeout {
		return MaxLockTimeout, fmt.Sprintf("%s=%q: longer than the %s a hook may wait inside its harness's timeout; waiting %s", LockTimeoutEnv, v, MaxLockTimeout, MaxLockTimeout)
	}
	return d, ""
}

// newLock is the flock of path, opened as openFile opens the other files;
// lockWithin checks it is a regular file once it holds it.
func newLock(path string) *flock.Flock {
	return flock.New(path, flock.SetFlag(regfile.Flag(os.O_CREATE|os.O_RDONLY, true)), flock.SetPermissions(0o644))
}

// lockWithin takes the exclusive lock, polling for at most timeout. A blocking
// flock cannot be abandoned, so the wait polls: 1 ms first (a hook holds the
// lock for about that long), doubling to 10 ms.
func lockWithin(lock *flock.Flock, timeout time.Duration) error {
	start := time.Now()
	delay := time.Millisecond
	for {
		ok, err := lock.TryLock()
		if err != nil {
			return err
		}
		if ok {
			if fi, err := lock.Stat(); err == nil && !fi.Mode().IsRegular() {
				_ = lock.Unlock()
				return notRegular(lock.Path())
			}
			return nil
		}
		waited := time.Since(start)
		if waited >= timeout {
			return &LockTimeoutError{Path: lock.Path(), Waited: waited.Round(time.Millisecond)}
		}
		time.Sleep(min(delay, timeout-waited))
		delay = min(2*delay, 10*time.Millisecond)
	}
}

func notRegular(path string) error {
	return fmt.Errorf("refusing %s: not a regular file (a device, FIFO or directory where hook-loop keeps its log)", path)
}

// ensureDir makes the log's directory, refusing one that is a symbolic link:
// through it every file of the log would land wherever the link points.
func ensureDir(dir string, create bool) (exists bool, err error) {
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if !create {
			return false, nil
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return false, fmt.Errorf("create event log directory: %w", err)
		}
		return true, nil
	case err != nil:
		return false, fmt.Errorf("event log directory: %w", err)
	case fi.Mode()&os.ModeSymlink != 0:
		return false, fmt.Errorf("refusing event log directory %s: it is a symbolic link (hook-loop keeps its log only in a real directory)", filepath.Clean(dir))
	case !fi.IsDir():
		return false, fmt.Errorf("create event log directory: %s is not a directory", filepath.Clean(dir))
	}
	return true, nil
}
