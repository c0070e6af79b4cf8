package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/eventlog/logline"
	"github.com/jackc/pgx/v5"
)

// scanPage is how many rows one query of a scan reads: each query stays short
// (within the statement timeout) and memory stays bounded however long the log.
const scanPage = 2000

// Scan streams every event of the log in order with its sequence number (the
// line number of the same log as a JSONL file). A stored line that is not an
// event is reported through warn and skipped; warn may be nil.
func (s *Store[V, P]) Scan(warn func(string), fn func(line int, e eventlog.Event) error) error {
	return s.ScanRaw(warn, func(line int, _ []byte, e eventlog.Event) error { return fn(line, e) })
}

// ScanRaw is Scan that also hands fn each event's stored line (valid only during
// the call).
func (s *Store[V, P]) ScanRaw(warn func(string), fn func(line int, raw []byte, e eventlog.Event) error) error {
	_, err := s.scanAfter(0, warn, func(r storedRow) error {
		if r.e == nil {
			return nil
		}
		return fn(int(r.seq), r.line, *r.e)
	})
	return err
}

// storedRow is one row of hook_loop_events.
type storedRow struct {
	seq     int64
	session string
	hash    string
	line    []byte
	e       *eventlog.Event // nil when the line is not an event
}

// scanAfter calls fn for every row after seq, page by page, and returns the last
// seq seen.
func (s *Store[V, P]) scanAfter(after int64, warn func(string), fn func(r storedRow) error) (int64, error) {
	for {
		var n int
		err := s.query(func(ctx context.Context, conn *pgx.Conn) error {
			var err error
			after, n, err = s.scanPage(ctx, conn, after, warn, fn)
			return err
		})
		if ce, ok := err.(*callbackError); ok {
			return after, ce.err
		}
		if err != nil {
			return after, err
		}
		if n < scanPage {
			return after, nil
		}
	}
}

// rowQuerier is a connection or a transaction.
type rowQuerier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// scanPage calls fn for up to scanPage events after seq after; it returns the
// last seq read and how many rows it read. fn's errors come back as a
// *callbackError.
func (s *Store[V, P]) scanPage(ctx context.Context, q rowQuerier, after int64, warn func(string), fn func(r storedRow) error) (int64, int, error) {
	if warn == nil {
		warn = func(string) {}
	}
	n := 0
	rows, err := q.Query(ctx, `SELECT seq, session_id, hash, line FROM hook_loop_events WHERE project = $1 AND loop = $2 AND seq > $3 ORDER BY seq LIMIT $4`,
		s.project, s.loop, after, scanPage)
	if err != nil {
		return after, n, err
	}
	defer rows.Close()
	for rows.Next() {
		var r storedRow
		if err := rows.Scan(&r.seq, &r.session, &r.hash, &r.line); err != nil {
			return after, n, err
		}
		n++
		after = r.seq
		if e, perr := logline.Parse(r.line); perr != nil {
			warn(fmt.Sprintf("%s:%d: skipped: %v", s.where, r.seq, perr))
		} else {
			r.e = &e
		}
		if err := fn(r); err != nil {
			return after, n, &callbackError{err}
		}
	}
	return after, n, rows.Err()
}

type callbackError struct{ err error }

func (c *callbackError) Error() string { return c.err.Error() }

// query runs fn on the connection with the usual deadline.
func (s *Store[V, P]) query(fn func(ctx context.Context, conn *pgx.Conn) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	conn, err := s.connect(ctx)
	if err != nil {
		return s.fail(ctx, "connect", err)
	}
	if err := fn(ctx, conn); err != nil {
		if _, ok := err.(*callbackError); ok {
			return err
		}
		return s.fail(ctx, "read", err)
	}
	return nil
}

// Verify walks the log and checks every session's hash chain as eventlog's
// Verify does (each event's prev_hash is the hash of its session's previous
// line), that every stored hash is its line's, that no sequence number is
// missing, and that the views still match the events (the last events of a
// session have no successor to vouch for them; its view does).
//
// With the log's key here it also judges every row as a hook does (keyed
// lines): rows hook-loop did not write are listed in Tampered.
func (s *Store[V, P]) Verify() (eventlog.VerifyReport, error) {
	var r eventlog.VerifyReport
	if err := s.loadKey(); err != nil {
		return r, err
	}
	r.Keyed, r.KeyPath = s.key != nil, eventlog.StoreKeyPath(s.keyID())
	err := s.snapshot(func(ctx context.Context, tx pgx.Tx) error {
		return s.verifyIn(ctx, tx, &r)
	})
	if ce, ok := err.(*callbackError); ok {
		err = ce.err
	}
	return r, err
}

// verifyIn is Verify's reading, in the snapshot tx.
func (s *Store[V, P]) verifyIn(ctx context.Context, tx pgx.Tx, r *eventlog.VerifyReport) error {
	type head struct {
		hash   string
		line   int
		events int64 // honoured
		okHash string
	}
	var j *judge
	if s.key != nil {
		n, want := s.key.Legacy()
		good := true
		if n > 0 {
			got, err := legacyDigest(ctx, tx, s.project, s.loop, n)
			if err != nil {
				return err
			}
			good = got == want
		}
		j = &judge{key: s.key, legacyN: n, legacyOK: func() bool { return good }}
	}
	honoured := 0
	heads := map[string]*head{}
	brk := func(line int, session string, prev int, format string, args ...any) {
		if r.BrokenLine == 0 {
			r.BrokenLine, r.BrokenSession, r.PrevLine, r.Reason = line, session, prev, fmt.Sprintf(format, args...)
		}
	}
	var last int64
	visit := func(row storedRow) error {
		n := int(row.seq)
		r.Lines++
		if row.seq != last+1 {
			brk(n, row.session, int(last), "no event with sequence numbers %d to %d: events were deleted", last+1, row.seq-1)
		}
		last = row.seq
		hash := chainHash(row.line)
		if hash != row.hash {
			brk(n, row.session, 0, "stored hash %.12s… is not the hash of the stored line (%.12s…): the line was edited", row.hash, hash)
		}
		h := heads[row.session]
		if h == nil {
			h = &head{}
			heads[row.session] = h
		}
		if row.e == nil {
			r.Skipped++
		} else {
			e := row.e
			r.Events++
			switch {
			case e.SessionID != row.session:
				brk(n, row.session, h.line, "line's session_id %q is not its row's session %q: the line was edited", e.SessionID, row.session)
			case e.PrevHash != h.hash && h.line == 0:
				brk(n, e.SessionID, 0, "first event of session %q has prev_hash %.12s…, but no earlier event of the session has that hash: events before it were deleted", e.SessionID, e.PrevHash)
			case e.PrevHash != h.hash && e.PrevHash == "":
				brk(n, e.SessionID, h.line, "event has no prev_hash, but session %q has an earlier event at %d: the line was written without a chain or edited", e.SessionID, h.line)
			case e.PrevHash != h.hash:
				brk(n, e.SessionID, h.line, "prev_hash is not the hash of event %d, the session's previous event: it was edited, or an event between %d and %d was deleted", h.line, h.line, n)
			}
		}
		why := ""
		if row.e == nil {
			why = "not an event"
		} else if j != nil {
			why = j.verdict(row.seq, row.line, row.e, h.okHash)
		}
		if why != "" {
			if row.e != nil {
				r.TamperedCount++
				if len(r.Tampered) < 64 {
					r.Tampered = append(r.Tampered, eventlog.TamperNote{Line: n, Session: row.session, Reason: why})
				}
			}
		} else {
			if logline.HasMAC(row.line) && r.KeyedAt == 0 {
				r.KeyedAt = n
			} else if !logline.HasMAC(row.line) {
				r.Legacy++
			}
			honoured++
			h.events++
			h.okHash = hash
		}
		h.hash, h.line = hash, n
		return nil
	}
	warn := func(w string) { r.Warnings = append(r.Warnings, w) }
	for after := int64(0); ; {
		next, n, err := s.scanPage(ctx, tx, after, warn, visit)
		if err != nil {
			return err
		}
		if after = next; n < scanPage {
			break
		}
	}
	r.Sessions = len(heads)
	{
		rows, err := tx.Query(ctx, `SELECT session_id, events, last_seq, last_hash FROM hook_loop_views WHERE project = $1 AND loop = $2 ORDER BY ord`, s.project, s.loop)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id, hash string
			var events, lastSeq int64
			if err := rows.Scan(&id, &events, &lastSeq, &hash); err != nil {
				return err
			}
			if id == "" {
				if events != int64(honoured) || lastSeq != last {
					brk(int(last)+1, "", 0, "the project view counts %d events up to %d, the log has %d honoured up to %d: events were deleted or added behind the store's back", events, lastSeq, honoured, last)
				}
				continue
			}
			h := heads[id]
			if h == nil {
				brk(max(int(last), 1), id, 0, "the view of session %q records %d events, the log has none: they were deleted", id, events)
				continue
			}
			if h.events != events || h.okHash != hash {
				brk(h.line, id, 0, "the view of session %q records %d events ending in a line with hash %.12s…; the log has %d ending at %d (hash %.12s…): the session's last events were edited or deleted",
					id, events, hash, h.events, h.line, h.okHash)
			}
		}
		return rows.Err()
	}
}

// snapshot runs fn in one read-only REPEATABLE READ transaction, so that all
// it reads — pages of events, then the views — is one moment of the store
// even while hooks commit: read apart, a transaction landing between the
// events and the views looks like tampering. It is a person's command, so the
// transaction has no overall deadline; each statement has Timeout.
func (s *Store[V, P]) snapshot(fn func(ctx context.Context, tx pgx.Tx) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	cctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	conn, err := s.connect(cctx)
	if err != nil {
		return s.fail(cctx, "connect", err)
	}
	ctx := context.Background()
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return s.fail(ctx, "begin", err)
	}
	defer func() {
		rctx, rcancel := context.WithTimeout(context.Background(), time.Second)
		_ = tx.Rollback(rctx)
		rcancel()
	}()
	if _, err := tx.Exec(ctx, "SELECT set_config('statement_timeout', $1, true)", fmt.Sprint(Timeout.Milliseconds())); err != nil {
		return s.fail(ctx, "begin", err)
	}
	if err := fn(ctx, tx); err != nil {
		if _, ok := err.(*callbackError); ok {
			return err
		}
		return s.fail(ctx, "read", err)
	}
	return nil
}

// Follow calls fn for every event stored after seq after, in order, as it is
// committed, until ctx ends or fn fails: it LISTENs on the project's channel on
// a connection of its own and reads what each notification announces (and,
// every few seconds, whatever a lost notification did not). It returns the last
// seq delivered with ctx's error or fn's.
func (s *Store[V, P]) Follow(ctx context.Context, after int64, fn func(line int, raw []byte, e eventlog.Event) error) (int64, error) {
	cctx, cancel := context.WithTimeout(ctx, Timeout)
	conn, err := pgx.ConnectConfig(cctx, s.cfg)
	cancel()
	if err != nil {
		return after, s.describe(ctx, "connect", err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{s.channel}.Sanitize()); err != nil {
		return after, s.describe(ctx, "listen", err)
	}
	for {
		after, err = s.scanAfter(after, nil, func(r storedRow) error {
			if r.e == nil {
				return nil
			}
			return fn(int(r.seq), r.line, *r.e)
		})
		if err != nil {
			return after, err
		}
		wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		if ctx.Err() != nil {
			return after, ctx.Err()
		}
		if err != nil && wctx.Err() == nil {
			return after, s.describe(ctx, "wait for events", err)
		}
		if n != nil {
			var note struct {
				Loop string `json:"loop"`
			}
			if json.Unmarshal([]byte(n.Payload), &note) == nil && note.Loop != s.loop {
				continue
			}
		}
	}
}
