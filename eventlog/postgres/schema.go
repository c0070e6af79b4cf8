package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/eventlog/logline"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// migration is one step of the schema; migrations[i] takes a database from
// version i to i+1. Steps are append-only: a released step never changes.
// Steps that change what a view row holds rebuild every view by rebuild,
// a fold of the stored events into the store's view type.
type migration func(ctx context.Context, tx pgx.Tx, rebuild rebuildFunc) error

// rebuildFunc replaces every view with a fold of the stored events
// (rebuildViews of the store's view type).
type rebuildFunc func(ctx context.Context, tx pgx.Tx) error

var migrations = []migration{
	// 1: the events, one row per log line, in per-(project, loop) order.
	func(ctx context.Context, tx pgx.Tx, _ rebuildFunc) error {
		_, err := tx.Exec(ctx, `
CREATE TABLE hook_loop_events (
	project    text   NOT NULL,
	loop       text   NOT NULL,
	seq        bigint NOT NULL,
	session_id text   NOT NULL,
	event_type text   NOT NULL,
	hash       text   NOT NULL,
	line       bytea  NOT NULL,
	PRIMARY KEY (project, loop, seq)
);
CREATE INDEX hook_loop_events_session ON hook_loop_events (project, loop, session_id, seq);`)
		return err
	},
	// 2: per-session and per-project views (the JSONL index's counterpart), built
	// from the events already stored.
	func(ctx context.Context, tx pgx.Tx, rebuild rebuildFunc) error {
		if _, err := tx.Exec(ctx, `
CREATE TABLE hook_loop_views (
	project    text   NOT NULL,
	loop       text   NOT NULL,
	session_id text   NOT NULL, -- '' is the project view
	ord        bigint NOT NULL, -- first-seen order; the project row holds the session count
	events     bigint NOT NULL,
	last_seq   bigint NOT NULL,
	last_hash  text   NOT NULL, -- the session's chain head
	summary    jsonb  NOT NULL,
	PRIMARY KEY (project, loop, session_id)
);`); err != nil {
			return err
		}
		return rebuild(ctx, tx)
	},
	// 3: views are the loop's session.View (they were a Summary of another
	// shape), and carry a MAC under the log's key (eventlog's keyed lines): rows
	// folded before are rebuilt here without one, and again under the key the
	// first time a hook that has it reads them.
	func(ctx context.Context, tx pgx.Tx, rebuild rebuildFunc) error {
		if _, err := tx.Exec(ctx, `ALTER TABLE hook_loop_views ADD COLUMN mac text NOT NULL DEFAULT ''`); err != nil {
			return err
		}
		return rebuild(ctx, tx)
	},
}

// schemaLockKey serialises migrations of one database across processes.
const schemaLockKey = 0x686f6f6b6c6f6f70 // "hookloop"

// ensureSchema brings the database to the latest schema version. The common case
// (already current) costs one query.
func ensureSchema(ctx context.Context, conn *pgx.Conn, rebuild rebuildFunc) error {
	v, err := schemaVersion(ctx, conn)
	if err != nil {
		return err
	}
	if v == len(migrations) {
		return nil
	}
	if v > len(migrations) {
		return fmt.Errorf("database schema is version %d, newer than this hook-loop knows (%d): upgrade hook-loop", v, len(migrations))
	}
	return migrateTo(ctx, conn, len(migrations), rebuild)
}

// migrateTo applies the steps up to version target in one transaction, under a
// lock so concurrent first hooks do not race.
func migrateTo(ctx context.Context, conn *pgx.Conn, target int, rebuild rebuildFunc) error {
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL statement_timeout = 0`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(schemaLockKey)); err != nil {
			return fmt.Errorf("lock schema: %w", err)
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS hook_loop_schema_migrations (
	version    integer PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now()
)`); err != nil {
			return fmt.Errorf("create schema_migrations: %w", err)
		}
		var v int
		if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM hook_loop_schema_migrations`).Scan(&v); err != nil {
			return err
		}
		for ; v < target; v++ {
			if err := migrations[v](ctx, tx, rebuild); err != nil {
				return fmt.Errorf("schema migration %d: %w", v+1, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO hook_loop_schema_migrations (version) VALUES ($1)`, v+1); err != nil {
				return err
			}
		}
		return nil
	})
}

func schemaVersion(ctx context.Context, conn *pgx.Conn) (int, error) {
	var v int
	err := conn.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM hook_loop_schema_migrations`).Scan(&v)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "42P01" { // undefined_table: a new database
		return 0, nil
	}
	return v, err
}

// rebuildViews replaces every view with a fold of the stored events.
func rebuildViews[V any, P ViewOf[V]](ctx context.Context, tx pgx.Tx) error {
	if _, err := tx.Exec(ctx, `DELETE FROM hook_loop_views`); err != nil {
		return err
	}
	rows, err := tx.Query(ctx, `SELECT project, loop, seq, session_id, hash, line FROM hook_loop_events ORDER BY project, loop, seq`)
	if err != nil {
		return err
	}
	type key struct{ project, loop string }
	var cur key
	var vs *views[V, P]
	var all []*views[V, P]
	var keys []key
	for rows.Next() {
		var k key
		var seq int64
		var session, hash string
		var line []byte
		if err := rows.Scan(&k.project, &k.loop, &seq, &session, &hash, &line); err != nil {
			rows.Close()
			return err
		}
		if vs == nil || k != cur {
			cur, vs = k, newViews[V, P]()
			all, keys = append(all, vs), append(keys, k)
		}
		e, err := logline.Parse(line)
		if err != nil {
			e = eventlog.Event{SessionID: session}
		}
		vs.add(&e, session, seq, hash)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for i, vs := range all {
		if err := vs.save(ctx, tx, keys[i].project, keys[i].loop, nil); err != nil {
			return err
		}
	}
	return nil
}

// viewRow is one row of hook_loop_views.
type viewRow[V any] struct {
	view     V
	ord      int64
	events   int64
	lastSeq  int64
	lastHash string
	mac      string // under the log's key; "" when written without one
	bad      bool   // the stored view does not decode
	dirty    bool
}

// views holds the rows of one (project, loop) a transaction has read or changed.
type views[V any, P ViewOf[V]] struct {
	project viewRow[V]
	sess    map[string]*viewRow[V]
	added   []string // sessions first seen here, in order
}

func newViews[V any, P ViewOf[V]]() *views[V, P] {
	return &views[V, P]{sess: map[string]*viewRow[V]{}}
}

// add folds one stored event into its session's row and the project row. A new
// session must have been looked up (or be absent from the database) first.
func (vs *views[V, P]) add(e *eventlog.Event, session string, seq int64, hash string) {
	r := vs.sess[session]
	if r == nil {
		vs.project.ord++
		r = &viewRow[V]{ord: vs.project.ord}
		vs.sess[session] = r
		vs.added = append(vs.added, session)
	}
	for _, row := range []*viewRow[V]{r, &vs.project} {
		P(&row.view).Fold(e)
		row.events++
		row.lastSeq = seq
		row.lastHash = hash
		row.dirty = true
	}
}

const upsertView = `INSERT INTO hook_loop_views (project, loop, session_id, ord, events, last_seq, last_hash, summary, mac)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
ON CONFLICT (project, loop, session_id) DO UPDATE SET
	ord = EXCLUDED.ord, events = EXCLUDED.events, last_seq = EXCLUDED.last_seq,
	last_hash = EXCLUDED.last_hash, summary = EXCLUDED.summary, mac = EXCLUDED.mac`

// upsertViewV2 is upsertView for a schema from before the mac column
// (rebuildViews in migration 2).
const upsertViewV2 = `INSERT INTO hook_loop_views (project, loop, session_id, ord, events, last_seq, last_hash, summary)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
ON CONFLICT (project, loop, session_id) DO UPDATE SET
	ord = EXCLUDED.ord, events = EXCLUDED.events, last_seq = EXCLUDED.last_seq,
	last_hash = EXCLUDED.last_hash, summary = EXCLUDED.summary`

// queue adds the upserts of every changed row to b, each with its MAC under
// key (none when key is nil).
func (vs *views[V, P]) queue(b *pgx.Batch, project, loop string, key *eventlog.LineKey) error {
	put := func(id string, r *viewRow[V]) error {
		if !r.dirty {
			return nil
		}
		js, err := json.Marshal(P(&r.view))
		if err != nil {
			return fmt.Errorf("encode view of %q: %w", id, err)
		}
		if key == nil {
			b.Queue(upsertViewV2, project, loop, id, r.ord, r.events, r.lastSeq, r.lastHash, string(js))
			return nil
		}
		mac, err := rowMAC[V, P](key, project, loop, id, r)
		if err != nil {
			return fmt.Errorf("encode view of %q: %w", id, err)
		}
		b.Queue(upsertView, project, loop, id, r.ord, r.events, r.lastSeq, r.lastHash, string(js), mac)
		return nil
	}
	if err := put("", &vs.project); err != nil {
		return err
	}
	for id, r := range vs.sess {
		if err := put(id, r); err != nil {
			return err
		}
	}
	return nil
}

func (vs *views[V, P]) save(ctx context.Context, tx pgx.Tx, project, loop string, key *eventlog.LineKey) error {
	b := &pgx.Batch{}
	if err := vs.queue(b, project, loop, key); err != nil {
		return err
	}
	return tx.SendBatch(ctx, b).Close()
}

// loadRow reads one view row; ok is false when there is none.
func loadRow[V any, P ViewOf[V]](ctx context.Context, q pgx.Tx, project, loop, session string) (viewRow[V], bool, error) {
	return scanView[V, P](q.QueryRow(ctx, viewSQL, project, loop, session))
}
