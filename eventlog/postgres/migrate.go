package postgres

import (
	"bufio"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gofrs/flock"
	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/eventlog/logline"
	"github.com/jackc/pgx/v5"
)

// MigrateReport says what Migrate did.
type MigrateReport struct {
	Source, Dest string // for messages, without passwords
	Events       int    // events in the source
	Present      int    // of those, already in the destination
	Copied       int    // copied now
}

// Migrate copies the event log at from into to (a JSONL file into PostgreSQL or
// back, or between databases), line for line so every chain and event id
// survives. Each end keeps its own key (eventlog's keyed lines): the source is
// verified under its key, and every line is sealed again under the
// destination's, its prev_hash re-chained to the destination's lines (the MAC
// covers prev_hash, so each line's hash changes with the key). Lines are
// compared without MAC and prev_hash (logline.Core), so a copy is recognised
// whichever key sealed it, and between two ends with one key the lines are
// copied byte for byte. Both chains are verified: a broken source is refused, and so is a
// destination whose events are not a prefix of the source's (diverged: writing
// would mix two histories). What the destination already has is kept, so running
// it again copies nothing. opts names the log inside either database.
func Migrate[V any, P ViewOf[V]](ctx context.Context, from, to Target, opts Options) (MigrateReport, error) {
	rep := MigrateReport{Source: from.String(), Dest: to.String()}
	if from == to {
		return rep, fmt.Errorf("migrate: source and destination are both %s", rep.Source)
	}
	src, err := openEnd[V, P](from, opts)
	if err != nil {
		return rep, err
	}
	defer src.close()
	dst, err := openEnd[V, P](to, opts)
	if err != nil {
		return rep, err
	}
	defer dst.close()

	if err := verified(src, "source"); err != nil {
		return rep, err
	}
	err = dst.appendAfter(ctx, func(have [][32]byte, put func(line []byte) error) error {
		i := 0
		err := src.lines(func(line []byte) error {
			rep.Events++
			if i < len(have) {
				if sha256.Sum256(logline.Core(line)) != have[i] {
					return refuse("migrate: %s has diverged from %s at event %d (a different event in the same place): refusing to overwrite it", rep.Dest, rep.Source, i+1)
				}
				i++
				rep.Present++
				return nil
			}
			rep.Copied++
			return put(line)
		})
		if err != nil {
			return err
		}
		if len(have) > rep.Events {
			return refuse("migrate: %s has %d events, more than the %d of %s: it has diverged, refusing to overwrite it", rep.Dest, len(have), rep.Events, rep.Source)
		}
		return nil
	})
	if err != nil {
		return rep, err
	}
	return rep, verified(dst, "destination")
}

// verified fails unless the end's chains are intact.
func verified(e end, role string) error {
	r, err := e.verify()
	if err != nil {
		return fmt.Errorf("migrate: verify %s %s: %w", role, e.name(), err)
	}
	if !r.OK() {
		return refuse("migrate: %s %s: chain broken at %d (session %q): %s", role, e.name(), r.BrokenLine, r.BrokenSession, r.Reason)
	}
	return nil
}

// end is one side of a migration.
type end interface {
	name() string
	verify() (eventlog.VerifyReport, error)
	// lines calls fn with every event line in order.
	lines(fn func(line []byte) error) error
	// appendAfter calls fn with the hashes of the cores (logline.Core) of the
	// events already there and a put that appends a line, sealed under the end's
	// key and chained to its session's last line; with the end locked
	// throughout, all-or-nothing.
	appendAfter(ctx context.Context, fn func(have [][32]byte, put func(line []byte) error) error) error
	close()
}

func openEnd[V any, P ViewOf[V]](t Target, o Options) (end, error) {
	if t.IsDB() {
		s, err := Open[V, P](t.URL, o)
		if err != nil {
			return nil, err
		}
		return dbEnd[V, P]{s}, nil
	}
	return fileEnd{eventlog.Open(t.Path, nil)}, nil
}

type fileEnd struct{ l *eventlog.Log }

func (f fileEnd) name() string { return f.l.Path() }
func (f fileEnd) close()       {}

func (f fileEnd) verify() (eventlog.VerifyReport, error) { return f.l.Verify() }

func (f fileEnd) lines(fn func(line []byte) error) error {
	return f.l.ScanRaw(nil, func(_ int, raw []byte, _ eventlog.Event) error { return fn(raw) })
}

// appendAfter writes under the log's own lock, whole lines after the last one, so
// hooks running meanwhile wait and then fold the new lines from the log (its
// index is a cache that catches up on the lines after its offset).
func (f fileEnd) appendAfter(_ context.Context, fn func(have [][32]byte, put func(line []byte) error) error) error {
	path := f.l.Path()
	// An empty Update closes a torn last line first, so appends start on a fresh line.
	if err := f.l.Update(func(*eventlog.Tx) error { return nil }); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	lock := flock.New(f.l.LockPath())
	if err := lock.Lock(); err != nil {
		return fmt.Errorf("lock %s: %w", f.l.LockPath(), err)
	}
	defer lock.Unlock()
	key, err := f.l.SealingKey()
	if err != nil {
		return err
	}
	var have [][32]byte
	heads := map[string]string{}
	if err := f.l.ScanRaw(nil, func(_ int, line []byte, e eventlog.Event) error {
		have = append(have, sha256.Sum256(logline.Core(line)))
		heads[e.SessionID] = logline.Hash(line)
		return nil
	}); err != nil {
		return err
	}
	file, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer file.Close()
	fi, err := file.Stat()
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(file, 1<<20)
	err = fn(have, func(line []byte) error {
		e, err := logline.Parse(line)
		if err != nil {
			return err
		}
		line, err = rechain(key, line, heads[e.SessionID])
		if err != nil {
			return err
		}
		heads[e.SessionID] = logline.Hash(line)
		if _, err := w.Write(line); err != nil {
			return err
		}
		return w.WriteByte('\n')
	})
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = file.Sync()
	}
	if err != nil {
		// All or nothing: take back what was written.
		if terr := file.Truncate(fi.Size()); terr != nil {
			return fmt.Errorf("%w (and could not remove the partial copy from %s: %v)", err, path, terr)
		}
		return err
	}
	return nil
}

type dbEnd[V any, P ViewOf[V]] struct{ s *Store[V, P] }

func (d dbEnd[V, P]) name() string                           { return d.s.where }
func (d dbEnd[V, P]) close()                                 { _ = d.s.Close() }
func (d dbEnd[V, P]) verify() (eventlog.VerifyReport, error) { return d.s.Verify() }

func (d dbEnd[V, P]) lines(fn func(line []byte) error) error {
	_, err := d.s.scanAfter(0, nil, func(r storedRow) error { return fn(r.line) })
	return err
}

// appendAfter copies in one transaction under the loop's lock, without the
// statement timeout (a long log takes a while), with COPY in pages.
func (d dbEnd[V, P]) appendAfter(ctx context.Context, fn func(have [][32]byte, put func(line []byte) error) error) error {
	s := d.s
	s.mu.Lock()
	defer s.mu.Unlock()
	cctx, cancel := context.WithTimeout(ctx, Timeout)
	conn, err := s.connect(cctx)
	cancel()
	if err != nil {
		return s.fail(cctx, "connect", err)
	}
	if err := s.loadKey(); err != nil {
		return err
	}
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL statement_timeout = 0`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, s.lockKey); err != nil {
			return err
		}
		stx := &Tx[V, P]{s: s, tx: tx, vs: newViews[V, P]()}
		if err := stx.start(ctx); err != nil {
			return err
		}
		if s.key == nil {
			if err := stx.createKey(ctx); err != nil {
				return err
			}
		}
		var have [][32]byte
		rows, err := tx.Query(ctx, `SELECT line FROM hook_loop_events WHERE project = $1 AND loop = $2 ORDER BY seq`, s.project, s.loop)
		if err != nil {
			return err
		}
		for rows.Next() {
			var line []byte
			if err := rows.Scan(&line); err != nil {
				rows.Close()
				return err
			}
			have = append(have, sha256.Sum256(logline.Core(line)))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		vs := stx.vs
		seq := stx.seq
		var page [][]any
		flush := func() error {
			if len(page) == 0 {
				return nil
			}
			_, err := tx.CopyFrom(ctx, pgx.Identifier{"hook_loop_events"}, []string{"project", "loop", "seq", "session_id", "event_type", "hash", "line"}, pgx.CopyFromRows(page))
			page = page[:0]
			return err
		}
		err = fn(have, func(line []byte) error {
			e, err := logline.Parse(line)
			if err != nil {
				return fmt.Errorf("migrate: event %d does not read: %w", seq+1, err)
			}
			prev := ""
			if r := stx.row(e.SessionID); r != nil {
				prev = r.lastHash
			} else if stx.err != nil {
				return stx.err
			}
			if line, err = rechain(s.key, line, prev); err != nil {
				return err
			}
			if e, err = logline.Parse(line); err != nil {
				return err
			}
			seq++
			hash := chainHash(line)
			vs.add(&e, e.SessionID, seq, hash)
			page = append(page, []any{s.project, s.loop, seq, e.SessionID, e.EventType, hash, append([]byte(nil), line...)})
			if len(page) == scanPage {
				return flush()
			}
			return nil
		})
		if err != nil {
			return err
		}
		if err := flush(); err != nil {
			return err
		}
		b := &pgx.Batch{}
		if err := vs.queue(b, s.project, s.loop, s.key); err != nil {
			return err
		}
		s.queueNotify(b, seq)
		return tx.SendBatch(ctx, b).Close()
	})
	var r *Refusal
	if err != nil && !errors.As(err, &r) {
		return s.fail(ctx, "copy", err)
	}
	return err
}

// rechain is line sealed under key after prev, or a refusal when line is not
// written the way hook-loop writes lines.
func rechain(key *eventlog.LineKey, line []byte, prev string) ([]byte, error) {
	out, ok := logline.Rechain(key.Key, line, prev)
	if !ok {
		return nil, refuse("migrate: a line's prev_hash is not where hook-loop writes it (written by another program?); it cannot be sealed under the destination's key: %.80s", line)
	}
	return out, nil
}

// Refusal is Migrate declining to copy: the data would mix two histories or a
// chain is broken. Nothing was written.
type Refusal struct{ msg string }

func (r *Refusal) Error() string { return r.msg }

func refuse(format string, args ...any) *Refusal { return &Refusal{fmt.Sprintf(format, args...)} }
