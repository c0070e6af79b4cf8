package postgres

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The opening and closing statements of a transaction go to the server as
// one pipelined batch each: a hook's two round trips.

// insertEventSQL stores one event.
const insertEventSQL = `INSERT INTO hook_loop_events (project, loop, seq, session_id, event_type, hash, line) VALUES ($1, $2, $3, $4, $5, $6, $7)`

// notifySQL tells followers the log grew (queueNotify).
const notifySQL = `SELECT pg_notify($1, $2)`

const (
	beginSQL         = `BEGIN`
	beginReadOnlySQL = `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY`
	schemaSQL        = `SELECT coalesce(max(version), 0) FROM hook_loop_schema_migrations`
	lockSQL          = `SELECT pg_advisory_xact_lock($1) FROM (SELECT set_config('lock_timeout', $2, true)) AS lt`
	commitSQL        = `COMMIT`
)

// rawBatch is a pipelined batch sent through pgconn, each statement
// unnamed, its arguments encoded here: pgx's encoder would need each
// statement's description first, a round trip more.
type rawBatch struct {
	b pgconn.Batch
	n int
}

// queue adds sql with args: strings and integers as text, byte slices as
// bytea in binary. Results come in text format, as pgx's exec mode reads them.
func (rb *rawBatch) queue(sql string, args ...any) error {
	vals := make([][]byte, len(args))
	var formats []int16
	for i, a := range args {
		switch v := a.(type) {
		case string:
			vals[i] = []byte(v)
		case int64:
			vals[i] = strconv.AppendInt(nil, v, 10)
		case int:
			vals[i] = strconv.AppendInt(nil, int64(v), 10)
		case []byte:
			if formats == nil {
				formats = make([]int16, len(args))
			}
			formats[i] = 1
			vals[i] = v
			if v == nil {
				vals[i] = []byte{}
			}
		default:
			return fmt.Errorf("postgres: argument %d of %q: unsupported type %T", i+1, sql, a)
		}
	}
	rb.b.ExecParams(sql, vals, nil, formats, nil)
	rb.n++
	return nil
}

// fromPgx queues the statements of a pgx batch.
func (rb *rawBatch) fromPgx(b *pgx.Batch) error {
	for _, q := range b.QueuedQueries {
		if err := rb.queue(q.SQL, q.Arguments...); err != nil {
			return err
		}
	}
	return nil
}

// rawResults reads a rawBatch's results in order.
type rawResults struct {
	conn *pgx.Conn
	mrr  *pgconn.MultiResultReader
}

func sendRaw(ctx context.Context, conn *pgx.Conn, rb *rawBatch) *rawResults {
	return &rawResults{conn: conn, mrr: conn.PgConn().ExecBatch(ctx, &rb.b)}
}

// next is the next statement's result reader, or the batch's error.
func (r *rawResults) next() (*pgconn.ResultReader, error) {
	if !r.mrr.NextResult() {
		if err := r.mrr.Close(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("postgres: batch ended early")
	}
	return r.mrr.ResultReader(), nil
}

// exec reads the next statement's command tag.
func (r *rawResults) exec() (pgconn.CommandTag, error) {
	rr, err := r.next()
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	return rr.Close()
}

// query is the next statement's rows, decoded by pgx.
func (r *rawResults) query() (pgx.Rows, error) {
	rr, err := r.next()
	if err != nil {
		return nil, err
	}
	return pgx.RowsFromResultReader(r.conn.TypeMap(), rr), nil
}

// queryRow is the next statement's one row (pgx.ErrNoRows when none).
func (r *rawResults) queryRow() pgx.Row {
	rows, err := r.query()
	return rawRow{rows: rows, err: err}
}

func (r *rawResults) close() error { return r.mrr.Close() }

type rawRow struct {
	rows pgx.Rows
	err  error
}

func (r rawRow) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	defer r.rows.Close()
	if !r.rows.Next() {
		if err := r.rows.Err(); err != nil {
			return err
		}
		return pgx.ErrNoRows
	}
	if err := r.rows.Scan(dest...); err != nil {
		return err
	}
	r.rows.Close()
	return r.rows.Err()
}
