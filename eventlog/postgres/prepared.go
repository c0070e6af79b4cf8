package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// A hook's two round trips are a dozen small statements, and on a warm
// connection the server spends most of their time parsing and planning them
// (0.31 ms for the opening batch, 0.13 ms as prepared statements, measured on
// loopback). The connection keeper (internal/pgkeeper) therefore prepares the
// statements below on the connections it holds, and keeps them across loans:
// it resets every other piece of session state a borrower could have left
// (see pgkeeper), and keeps a prepared statement only when the server reports
// it with the text and the prepare time the keeper itself gave it, so one
// that a borrower deallocated and prepared again (under another search_path,
// say) is never used. A loan names the statements it carries
// (Loan.Prepared); a connection of the store's own carries none and sends
// the same statements unnamed.

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

// statements are the ones a keeper prepares. Each one's name ends in a digest
// of its text (StatementName), so a changed statement never runs under the
// name of the one before: a keeper started by an older binary names only
// statements a newer one does not know, or knows as they are.
var statements = []struct{ label, sql string }{
	{"schema", schemaSQL},
	{"lock", lockSQL},
	{"view", viewSQL},
	{"catch_up", catchUpSQL},
	{"insert_event", insertEventSQL},
	{"upsert_view", upsertView},
	{"upsert_view_v2", upsertViewV2},
	{"notify", notifySQL},
}

// StatementName is the name of the prepared statement labelled label
// ("view", "lock", …), "" when there is none.
func StatementName(label string) string {
	for _, st := range statements {
		if st.label == label {
			sum := sha256.Sum256([]byte(st.sql))
			return "hook_loop_" + label + "_" + hex.EncodeToString(sum[:6])
		}
	}
	return ""
}

// Statements lists the statements a lender prepares on the connections it
// lends, name to text.
func Statements() map[string]string {
	m := make(map[string]string, len(statements))
	for _, st := range statements {
		m[StatementName(st.label)] = st.sql
	}
	return m
}

// preparedNames maps the text of each statement a loan carries to its name.
func preparedNames(names []string) map[string]string {
	if len(names) == 0 {
		return nil
	}
	all := Statements()
	out := make(map[string]string, len(names))
	for _, n := range names {
		if sql, ok := all[n]; ok {
			out[sql] = n
		}
	}
	return out
}

// rawBatch is a pipelined batch sent through pgconn: each statement by the
// name of its prepared statement when the connection has it, else unnamed,
// its arguments encoded here (pgx's encoder would need the statement's
// description, a round trip on a lent connection).
type rawBatch struct {
	b     pgconn.Batch
	named map[string]string // statement text → prepared name on this connection
	n     int
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
	if name, ok := rb.named[sql]; ok {
		rb.b.ExecPrepared(name, vals, formats, nil)
	} else {
		rb.b.ExecParams(sql, vals, nil, formats, nil)
	}
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
