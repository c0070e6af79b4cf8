package postgres

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"
)

// What a live view of the log (the board, status --watch) reads: where the log
// ends, its end backwards, the lines of one event type, what follows a
// position, and a wake-up when something is committed.

// LastSeq is the sequence number of the log's last row, 0 when it has none.
func (s *Store[V, P]) LastSeq() (int64, error) {
	var n int64
	err := s.query(func(ctx context.Context, conn *pgx.Conn) error {
		return conn.QueryRow(ctx, `SELECT coalesce(max(seq), 0) FROM hook_loop_events WHERE project = $1 AND loop = $2`, s.project, s.loop).Scan(&n)
	})
	return n, err
}

// ScanBack calls fn with the stored lines of the rows up to seq upTo, last
// first, page by page, until fn returns false or the first row; it reports
// whether it reached the first row. A line is valid only during the call.
func (s *Store[V, P]) ScanBack(upTo int64, fn func(seq int64, line []byte) bool) (bool, error) {
	for {
		n, stopped := 0, false
		err := s.query(func(ctx context.Context, conn *pgx.Conn) error {
			rows, err := conn.Query(ctx, `SELECT seq, line FROM hook_loop_events WHERE project = $1 AND loop = $2 AND seq <= $3 ORDER BY seq DESC LIMIT $4`,
				s.project, s.loop, upTo, scanPage)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var seq int64
				var line []byte
				if err := rows.Scan(&seq, &line); err != nil {
					return err
				}
				n++
				upTo = seq - 1
				if !fn(seq, line) {
					stopped = true
					return nil
				}
			}
			return rows.Err()
		})
		if err != nil || stopped {
			return false, err
		}
		if n < scanPage {
			return true, nil
		}
	}
}

// ScanType calls fn, first to last, with the stored lines of the rows up to
// seq upTo of event type typ and one of sessions; fn returns false to stop.
func (s *Store[V, P]) ScanType(typ string, sessions []string, upTo int64, fn func(line []byte) bool) error {
	return s.query(func(ctx context.Context, conn *pgx.Conn) error {
		rows, err := conn.Query(ctx, `SELECT line FROM hook_loop_events WHERE project = $1 AND loop = $2 AND event_type = $3 AND session_id = ANY($4) AND seq <= $5 ORDER BY seq`,
			s.project, s.loop, typ, sessions, upTo)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var line []byte
			if err := rows.Scan(&line); err != nil {
				return err
			}
			if !fn(line) {
				return nil
			}
		}
		return rows.Err()
	})
}

// ScanAfter calls fn with the stored lines of the rows after seq after, in
// order, and returns the last seq read. A line is valid only during the call.
func (s *Store[V, P]) ScanAfter(after int64, fn func(seq int64, line []byte) error) (int64, error) {
	return s.scanAfter(after, nil, func(r storedRow) error { return fn(r.seq, r.line) })
}

// Listen calls wake whenever events of this log are committed, until ctx
// ends (it returns nil) or the connection fails. It LISTENs on a connection of
// its own, so the store stays free for reads.
func (s *Store[V, P]) Listen(ctx context.Context, wake func()) error {
	cctx, cancel := context.WithTimeout(ctx, s.budget)
	conn, err := pgx.ConnectConfig(cctx, s.cfg)
	cancel()
	if err != nil {
		return s.describe(cctx, "connect", err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{s.channel}.Sanitize()); err != nil {
		return s.describe(ctx, "listen", err)
	}
	for {
		n, err := conn.WaitForNotification(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			return s.describe(ctx, "wait for events", err)
		}
		var note struct {
			Loop string `json:"loop"`
		}
		if json.Unmarshal([]byte(n.Payload), &note) == nil && note.Loop != s.loop {
			continue
		}
		wake()
	}
}

// ListenRetry is how long a live view waits before listening again after the
// connection failed; it reads on its own interval meanwhile.
const ListenRetry = 2 * time.Second

// Projects lists every project with a log in the database (the project's own
// log, loop ""), in name order: what a team's board shows. Any Store of the
// database answers it, whatever its own project.
func (s *Store[V, P]) Projects(ctx context.Context) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, s.budget)
	defer cancel()
	conn, err := s.connect(ctx)
	if err != nil {
		return nil, s.fail(ctx, "connect", err)
	}
	rows, err := conn.Query(ctx, `SELECT DISTINCT project FROM hook_loop_views WHERE loop = '' ORDER BY project`)
	if err != nil {
		return nil, s.fail(ctx, "list projects", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, s.fail(ctx, "list projects", err)
	}
	return out, nil
}
