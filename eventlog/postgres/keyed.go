package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/eventlog/logline"
	"github.com/jackc/pgx/v5"
)

// Keyed lines, as in the file (eventlog's package doc): every line the store
// appends ends in a MAC under the log's key, kept per (project, loop) under
// eventlog.StateDir() — never in the database, which the agent's own
// credentials can usually write. A row is honoured (folded into the views[V, P]) only
// when its MAC is right and its prev_hash continues its session's chain; an
// unkeyed row only inside the legacy part the key pinned (the rows stored before
// keying, by count and digest). The cached views carry a MAC too, so an edited
// view row is rebuilt from the events, not believed.
//
// Sharing one loop across machines means sharing its key: every machine's
// hooks need the same key file (eventlog.StoreKeyPath), copied once from the
// machine that created it. A machine without it reads the log unverified (with
// a warning) and refuses to append, rather than fork the loop under a key of
// its own.

// ErrNoKey is an append to a keyed log from a machine without its key.
var ErrNoKey = errors.New("this machine has no key for the log")

// keyID names the store log's key: one per (project, loop).
func (s *Store[V, P]) keyID() string { return s.project + "\x00" + s.loop }

// loadKey reads the log's key when this machine has it.
func (s *Store[V, P]) loadKey() error {
	if s.key != nil {
		return nil
	}
	k, err := eventlog.ReadStoreKey(s.keyID())
	if err != nil {
		return fmt.Errorf("event store %s: %w", s.where, err)
	}
	s.key = k
	return nil
}

// legacyDigest is the digest the key pins of the first n rows: SHA-256 over
// their line hashes in order.
func legacyDigest(ctx context.Context, q pgx.Tx, project, loop string, n int64) (string, error) {
	h := sha256.New()
	rows, err := q.Query(ctx, `SELECT line FROM hook_loop_events WHERE project = $1 AND loop = $2 AND seq <= $3 ORDER BY seq`, project, loop, n)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	for rows.Next() {
		var line []byte
		if err := rows.Scan(&line); err != nil {
			return "", err
		}
		h.Write([]byte(logline.Hash(line)))
	}
	return hex.EncodeToString(h.Sum(nil)), rows.Err()
}

// createKey keys the log on its first keyed append (the loop's lock held): the
// rows stored so far are its legacy part — unless one of them already has a
// MAC, which means another machine keyed the log and this one lacks its key.
func (tx *Tx[V, P]) createKey(ctx context.Context) error {
	s := tx.s
	var keyed bool
	var n int64
	err := tx.tx.QueryRow(ctx, `SELECT coalesce(max(seq), 0), coalesce(bool_or(position('"mac":"' in convert_from(line, 'UTF8')) > 0), false) FROM hook_loop_events WHERE project = $1 AND loop = $2`,
		s.project, s.loop).Scan(&n, &keyed)
	if err != nil {
		return err
	}
	if keyed {
		return fmt.Errorf("%w (project %q): its lines are keyed elsewhere; copy the key file %s from a machine whose hooks wrote them", ErrNoKey, s.project, eventlog.StoreKeyPath(s.keyID()))
	}
	digest, err := legacyDigest(ctx, tx.tx, s.project, s.loop, n)
	if err != nil {
		return err
	}
	k, err := eventlog.CreateStoreKey(s.keyID(), n, digest)
	if err != nil {
		return err
	}
	s.key = k
	if n == 0 {
		return nil
	}
	// The views were kept without a key: fold them again under it.
	return tx.rebuild(ctx)
}

// judge decides which rows are honoured (the file's rules, see the top).
type judge struct {
	key        *eventlog.LineKey
	legacyN    int64
	legacyOK   func() bool
	legacyDone bool
	legacyGood bool
}

func newJudge(ctx context.Context, q pgx.Tx, project, loop string, key *eventlog.LineKey) *judge {
	j := &judge{key: key}
	if key != nil {
		n, want := key.Legacy()
		j.legacyN = n
		j.legacyOK = func() bool {
			got, err := legacyDigest(ctx, q, project, loop, n)
			return err == nil && got == want
		}
	}
	return j
}

// verdict is "" when the row is honoured, else why not.
func (j *judge) verdict(seq int64, line []byte, e *eventlog.Event, lastHash string) string {
	if j.key == nil {
		return "" // not keyed here: shown unverified (the caller warns)
	}
	if !logline.HasMAC(line) {
		if seq > j.legacyN {
			return fmt.Sprintf("no MAC: the log is keyed from event %d on, so this line was not written by hook-loop (forged, or by an older hook-loop)", j.legacyN+1)
		}
		if !j.legacyDone {
			j.legacyDone, j.legacyGood = true, j.legacyOK()
		}
		if !j.legacyGood {
			return fmt.Sprintf("no MAC, and the log's first %d events (from before keying) are not the ones hook-loop pinned in %s: rewritten or replaced", j.legacyN, j.key.Path())
		}
		return ""
	}
	if !j.key.Check(line) {
		return "MAC does not match the line: forged or edited"
	}
	if e.PrevHash != lastHash {
		return fmt.Sprintf("MAC is right but prev_hash %.12s… is not the session's last line: replayed, reordered, or an earlier line was removed", e.PrevHash)
	}
	return ""
}

// rowMAC is the MAC of a view row under key: it binds the row to its log and
// session, so a row cannot be edited or moved.
func rowMAC[V any, P ViewOf[V]](key *eventlog.LineKey, project, loop, session string, r *viewRow[V]) (string, error) {
	js, err := json.Marshal(P(&r.view))
	if err != nil {
		return "", err
	}
	return key.Sum(fmt.Appendf(nil, "%s\x00%s\x00%s\x00%d\x00%d\x00%d\x00%s\x00%s", project, loop, session, r.ord, r.events, r.lastSeq, r.lastHash, js)), nil
}

// rebuild folds every row of the log again under the key, honouring only what
// the judge does, and marks every view to be saved: what the file does with an
// index it cannot trust.
func (tx *Tx[V, P]) rebuild(ctx context.Context) error {
	vs := newViews[V, P]()
	j := newJudge(ctx, tx.tx, tx.s.project, tx.s.loop, tx.s.key)
	all, err := readRows(ctx, tx.tx, `SELECT seq, session_id, line FROM hook_loop_events WHERE project = $1 AND loop = $2 ORDER BY seq`, tx.s.project, tx.s.loop)
	if err != nil {
		return err
	}
	for _, r := range all {
		tx.judgeRow(vs, j, r.seq, r.session, r.line)
	}
	vs.project.dirty = true
	for _, r := range vs.sess {
		r.dirty = true
	}
	tx.vs, tx.seq = vs, vs.project.lastSeq
	tx.rebuilt = true
	tx.s.warn("%s: views of project %q rebuilt from its events", tx.s.where, tx.s.project)
	return nil
}

// judgeRow folds one stored row into vs when the judge honours it, and notes it
// otherwise; either way the log's position moves past it.
func (tx *Tx[V, P]) judgeRow(vs *views[V, P], j *judge, seq int64, session string, line []byte) {
	e, perr := logline.Parse(line)
	r := vs.sess[session]
	last := ""
	if r != nil {
		last = r.lastHash
	}
	why := ""
	if perr != nil {
		why = "not an event: " + perr.Error()
	} else {
		why = j.verdict(seq, line, &e, last)
	}
	if why == "" {
		vs.add(&e, session, seq, chainHash(line))
		return
	}
	vs.project.lastSeq = seq
	vs.project.dirty = true
	tx.tampered = append(tx.tampered, eventlog.TamperNote{Line: int(seq), Session: session, Reason: why, New: true})
	tx.s.warn("%s: event %d of session %q not honoured: %s", tx.s.where, seq, session, why)
}

// catchUp folds rows stored after the project view's position, which a hook
// never leaves (it stores events and views in one transaction) — so they were
// written behind the store's back, and are judged like any row.
func (tx *Tx[V, P]) catchUp(ctx context.Context) error {
	var extra []rec
	var err error
	if tx.pre != nil && tx.pre.caught {
		// Read with the opening batch, past the same stored project row.
		extra = tx.pre.catchUp
	} else {
		extra, err = readRows(ctx, tx.tx, `SELECT seq, session_id, line FROM hook_loop_events WHERE project = $1 AND loop = $2 AND seq > $3 ORDER BY seq`, tx.s.project, tx.s.loop, tx.vs.project.lastSeq)
	}
	if err != nil || len(extra) == 0 {
		return err
	}
	j := newJudge(ctx, tx.tx, tx.s.project, tx.s.loop, tx.s.key)
	for _, r := range extra {
		if tx.row(r.session) == nil && tx.err != nil {
			return tx.err
		}
		tx.judgeRow(tx.vs, j, r.seq, r.session, r.line)
	}
	tx.seq = tx.vs.project.lastSeq
	return nil
}

// rec is one event row as the judge needs it.
type rec struct {
	seq     int64
	session string
	line    []byte
}

// readRows reads the rows of a query selecting seq, session_id and line. The
// rows are read whole before any is judged: judging may query (the legacy
// digest), and a connection runs one query at a time.
func readRows(ctx context.Context, q pgx.Tx, sql string, args ...any) ([]rec, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	return collectRecs(rows)
}
