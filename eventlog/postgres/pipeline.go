package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// A hook's transaction is a handful of small statements; what it waits for is
// round trips (each one wakes the server's backend, which on a busy machine
// waits for a CPU). So the opening statements — schema version, BEGIN, the
// loop's lock, the project view, the events past it, the rows of the sessions
// the caller said it will read (Store.Expect) — go in one pipelined batch, and
// the appends go with COMMIT in another: two round trips where there were
// eight. The server runs a pipeline's statements in order and skips the rest
// after an error, so the lock is held before anything is read, and nothing is
// committed after a failed append.

// Expect names the sessions the next Update or View will read, so their view
// rows come with the transaction's first round trip. Sessions not named are
// read when asked for, as before.
func (s *Store[V, P]) Expect(sessions ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expect = append(s.expect[:0], sessions...)
}

// errSchemaVersion is an opening batch that found the schema not current.
var errSchemaVersion = errors.New("schema not current")

// opening is what the opening batch read.
type opening[V any] struct {
	schema  int
	project viewRow[V]
	found   bool  // the project row exists
	catchUp []rec // events after the project row's last_seq
	caught  bool  // catchUp is all of them (else catchUp reads them itself)
	sess    map[string]*loaded[V]
}

// session is the prefetched row of session id, nil when it was not fetched.
func (o *opening[V]) session(id string) *loaded[V] {
	if o == nil {
		return nil
	}
	return o.sess[id]
}

// loaded is a prefetched session row: ok is false when the log has none.
type loaded[V any] struct {
	row viewRow[V]
	ok  bool
}

const viewSQL = `SELECT ord, events, last_seq, last_hash, summary, mac FROM hook_loop_views WHERE project = $1 AND loop = $2 AND session_id = $3`

// catchUpSQL reads the events past the project row. The planner cannot see
// the subquery's value, guesses a third of the log, and on a large log then
// JIT-compiles the query (tens of ms): the LIMIT keeps its estimate small.
// More rows than that (never left by a hook, which stores its events and
// views together) are read by catchUp's own query.
const (
	catchUpLimit = 1000
	catchUpSQL   = `SELECT seq, session_id, line FROM hook_loop_events WHERE project = $1 AND loop = $2 AND seq > coalesce((SELECT last_seq FROM hook_loop_views WHERE project = $1 AND loop = $2 AND session_id = ''), 0) ORDER BY seq LIMIT 1000`
)

// begin opens the transaction (under the loop's lock unless readOnly) and
// reads what every transaction reads, in one round trip. stage names the
// statement that failed.
func (s *Store[V, P]) begin(ctx context.Context, conn *pgx.Conn, readOnly bool) (_ *connTx, _ *opening[V], stage string, err error) {
	b := &rawBatch{}
	begin := beginSQL
	if readOnly {
		begin = beginReadOnlySQL
	}
	if err := b.queue(begin); err != nil {
		return nil, nil, "begin", err
	}
	if err := b.queue(schemaSQL); err != nil {
		return nil, nil, "begin", err
	}
	if !readOnly {
		if err := b.queue(lockSQL, s.lockKey, fmt.Sprint(max(s.lockWait.Milliseconds(), 1))); err != nil {
			return nil, nil, "begin", err
		}
	}
	if err := b.queue(viewSQL, s.project, s.loop, ""); err != nil {
		return nil, nil, "begin", err
	}
	if err := b.queue(catchUpSQL, s.project, s.loop); err != nil {
		return nil, nil, "begin", err
	}
	for _, id := range s.expect {
		if err := b.queue(viewSQL, s.project, s.loop, id); err != nil {
			return nil, nil, "begin", err
		}
	}
	tx := &connTx{conn: conn}
	o := &opening[V]{sess: map[string]*loaded[V]{}}
	br := sendRaw(ctx, conn, b)
	defer func() {
		if cerr := br.close(); err == nil && cerr != nil {
			stage, err = "begin", cerr
		}
		if err != nil && conn.PgConn().TxStatus() != 'I' && !conn.IsClosed() {
			_ = tx.Rollback(ctx)
		}
	}()
	if _, err := br.exec(); err != nil {
		return nil, nil, "begin", err
	}
	if err := br.queryRow().Scan(&o.schema); err != nil {
		return nil, nil, "check schema", err
	}
	if o.schema != len(migrations) {
		// The statements after it may not fit this schema: migrate first.
		return nil, nil, "check schema", errSchemaVersion
	}
	if !readOnly {
		if _, err := br.exec(); err != nil {
			return nil, nil, "lock loop", err
		}
	}
	if o.project, o.found, err = scanView[V, P](br.queryRow()); err != nil {
		return nil, nil, "read project view", err
	}
	rows, err := br.query()
	if err == nil {
		o.catchUp, err = collectRecs(rows)
	}
	if err != nil {
		return nil, nil, "read project view", err
	}
	o.caught = len(o.catchUp) < catchUpLimit
	for _, id := range s.expect {
		r, ok, err := scanView[V, P](br.queryRow())
		if err != nil {
			return nil, nil, "read session view", err
		}
		o.sess[id] = &loaded[V]{row: r, ok: ok}
	}
	return tx, o, "", nil
}

// scanView reads one view row (loadRow's statement).
func scanView[V any, P ViewOf[V]](row pgx.Row) (viewRow[V], bool, error) {
	var r viewRow[V]
	var js []byte
	err := row.Scan(&r.ord, &r.events, &r.lastSeq, &r.lastHash, &js, &r.mac)
	if errors.Is(err, pgx.ErrNoRows) {
		return viewRow[V]{}, false, nil
	}
	if err != nil {
		return viewRow[V]{}, false, err
	}
	if err := json.Unmarshal(js, P(&r.view)); err != nil {
		// Not believed: folded again from the events (Tx.trust).
		var zero V
		r.view, r.bad = zero, true
	}
	return r, true, nil
}

func collectRecs(rows pgx.Rows) ([]rec, error) {
	defer rows.Close()
	var out []rec
	for rows.Next() {
		var r rec
		if err := rows.Scan(&r.seq, &r.session, &r.line); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// commitBatch sends b with COMMIT after it: one round trip. After an error the
// server skips the rest of the pipeline, COMMIT included, and the transaction
// stays open and failed for the caller's rollback.
func (t *connTx) commitBatch(ctx context.Context, b *pgx.Batch) (stage string, err error) {
	rb := &rawBatch{}
	if err := rb.fromPgx(b); err != nil {
		return "append", err
	}
	n := rb.n
	if err := rb.queue(commitSQL); err != nil {
		return "commit", err
	}
	br := sendRaw(ctx, t.conn, rb)
	for i := 0; i < n && err == nil; i++ {
		_, err = br.exec()
		stage = "append"
	}
	var tag pgconn.CommandTag
	if err == nil {
		tag, err = br.exec()
		stage = "commit"
	}
	if cerr := br.close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return stage, err
	}
	t.closed = true
	if tag.String() != "COMMIT" || t.conn.PgConn().TxStatus() != 'I' {
		return "commit", fmt.Errorf("commit ended as %q", tag.String())
	}
	return "", nil
}

// connTx is the transaction the opening batch began. pgx only makes a pgx.Tx
// with a BEGIN of its own (a round trip), so this one stands in for it.
type connTx struct {
	conn   *pgx.Conn
	closed bool
}

var _ pgx.Tx = (*connTx)(nil)

func (t *connTx) Begin(context.Context) (pgx.Tx, error) {
	return nil, errors.New("postgres: nested transaction")
}

func (t *connTx) Commit(ctx context.Context) error {
	if t.closed {
		return pgx.ErrTxClosed
	}
	t.closed = true
	tag, err := t.conn.Exec(ctx, "COMMIT")
	if err != nil {
		if t.conn.PgConn().TxStatus() != 'I' {
			_ = t.conn.Close(ctx) // its state is unknown: never reuse it
		}
		return err
	}
	if tag.String() == "ROLLBACK" {
		return pgx.ErrTxCommitRollback
	}
	return nil
}

func (t *connTx) Rollback(ctx context.Context) error {
	if t.closed {
		return pgx.ErrTxClosed
	}
	t.closed = true
	if _, err := t.conn.Exec(ctx, "ROLLBACK"); err != nil {
		_ = t.conn.Close(ctx) // the server rolls back when it closes
		return err
	}
	return nil
}

func (t *connTx) CopyFrom(ctx context.Context, table pgx.Identifier, cols []string, src pgx.CopyFromSource) (int64, error) {
	return t.conn.CopyFrom(ctx, table, cols, src)
}

func (t *connTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	return t.conn.SendBatch(ctx, b)
}

func (t *connTx) LargeObjects() pgx.LargeObjects { return pgx.LargeObjects{} }

func (t *connTx) Prepare(ctx context.Context, name, sql string) (*pgconn.StatementDescription, error) {
	return t.conn.Prepare(ctx, name, sql)
}

func (t *connTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	return t.conn.Exec(ctx, sql, args...)
}

func (t *connTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	return t.conn.Query(ctx, sql, args...)
}

func (t *connTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return t.conn.QueryRow(ctx, sql, args...)
}

func (t *connTx) Conn() *pgx.Conn { return t.conn }
