package overview

import (
	"context"
	"time"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/eventlog/follow"
	"github.com/hook-loop/hook-loop/eventlog/postgres"
	"github.com/hook-loop/hook-loop/loop/session"
)

// logSource is where the overview reads the log: the JSONL file or the
// project's log in PostgreSQL. Positions are byte offsets in the file and
// sequence numbers in the store; the Watcher only hands them back.
type logSource interface {
	where() string
	// view reads the sessions' views (the file's index, the store's view rows).
	view(fn func(tx session.Reader, ids []string) error) error
	// end fixes where the first load stops and the follower starts.
	end() (int64, error)
	// backwards calls fn with the lines before end, last first, within limit
	// bytes, until fn returns false; it reports whether it reached the first.
	backwards(end, limit int64, fn func(line []byte) bool) (bool, error)
	// starts calls fn with the loop_started lines before end of the sessions
	// in ids, first to last, until fn returns false.
	starts(end int64, ids map[string]bool, fn func(line []byte) bool) error
	// follow starts reading what follows end; reset is called when the log
	// was replaced and is read again from its start.
	follow(end int64, reset func()) error
	// poll calls fn with the lines appended since the last call.
	poll(fn func(line []byte) error) error
	// run waits on the log until ctx ends, calling wake when it may have
	// grown (at least every interval), then closes what follow opened.
	run(ctx context.Context, wake func())
}

// fileSource is the JSONL log, followed by polling (package follow).
type fileSource struct {
	l  *session.Log
	fw *follow.Follower
}

func (f *fileSource) where() string { return f.l.Path() }

func (f *fileSource) view(fn func(tx session.Reader, ids []string) error) error {
	return f.l.View(func(tx session.Tx) error { return fn(tx, tx.SessionIDs()) })
}

func (f *fileSource) end() (int64, error) { return completeEnd(f.l.Path()) }

func (f *fileSource) backwards(end, limit int64, fn func(line []byte) bool) (bool, error) {
	return readBackwards(f.l.Path(), end, limit, fn)
}

func (f *fileSource) starts(end int64, ids map[string]bool, fn func(line []byte) bool) error {
	return readForwards(f.l.Path(), end, startNeedle, fn)
}

func (f *fileSource) follow(end int64, reset func()) error {
	f.fw = follow.New(f.l.Path(), end)
	f.fw.OnReset = reset
	return f.fw.Open()
}

func (f *fileSource) poll(fn func(line []byte) error) error { return f.fw.Poll(fn) }

func (f *fileSource) run(ctx context.Context, wake func()) {
	defer f.fw.Close()
	for {
		select {
		case <-ctx.Done():
			return
		case <-afterInterval(f.fw):
			wake()
		}
	}
}

// startType is the event that names a session's harness; startNeedle finds
// its lines in the file without decoding them.
var (
	startType   = eventlog.TypeLoopStarted
	startNeedle = []byte(`"event_type":"` + eventlog.TypeLoopStarted + `"`)
)

// storeSource is the project's log in PostgreSQL: woken by the store's
// notifications (LISTEN, as `log --follow`), and read every Options.StorePoll
// as well, for a notification lost with a dropped connection.
type storeSource struct {
	s     *postgres.Store[session.View, *session.View]
	every time.Duration
	last  int64 // the last seq handed out
}

// DefaultStorePoll is how often the overview reads the store without a
// notification.
const DefaultStorePoll = time.Second

func (d *storeSource) where() string { return d.s.Where() + " (project " + d.s.Project() + ")" }

func (d *storeSource) view(fn func(tx session.Reader, ids []string) error) error {
	return d.s.View(func(tx *postgres.Tx[session.View, *session.View]) error { return fn(tx, tx.SessionIDs()) })
}

func (d *storeSource) end() (int64, error) { return d.s.LastSeq() }

func (d *storeSource) backwards(end, limit int64, fn func(line []byte) bool) (bool, error) {
	var read int64
	over := false
	reached, err := d.s.ScanBack(end, func(_ int64, line []byte) bool {
		if read += int64(len(line)) + 1; read > limit {
			over = true
			return false
		}
		return fn(line)
	})
	return reached && !over, err
}

func (d *storeSource) starts(end int64, ids map[string]bool, fn func(line []byte) bool) error {
	list := make([]string, 0, len(ids))
	for id := range ids {
		list = append(list, id)
	}
	return d.s.ScanType(startType, list, end, fn)
}

func (d *storeSource) follow(end int64, _ func()) error {
	d.last = end
	return nil
}

func (d *storeSource) poll(fn func(line []byte) error) error {
	last, err := d.s.ScanAfter(d.last, func(_ int64, line []byte) error { return fn(line) })
	d.last = last
	return err
}

func (d *storeSource) run(ctx context.Context, wake func()) {
	notes := make(chan struct{}, 1)
	go func() {
		for ctx.Err() == nil {
			// A failed LISTEN (server restarted) is tried again; the
			// interval reads meanwhile.
			_ = d.s.Listen(ctx, func() {
				select {
				case notes <- struct{}{}:
				default:
				}
			})
			select {
			case <-ctx.Done():
			case <-time.After(postgres.ListenRetry):
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case <-notes:
		case <-time.After(d.every):
		}
		wake()
	}
}
