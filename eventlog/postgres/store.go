// Package postgres is the event log in PostgreSQL, for loops shared by agents on
// several machines. It mirrors eventlog.Log: Update runs a read-decide-append in
// one transaction under a per-(project, loop) advisory lock, View reads a
// consistent snapshot, and each event is stored as the exact JSON line the JSONL
// log would hold, chained per session with logline.Hash, so `log verify`
// means the same on both and Migrate copies between them line for line.
package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/eventlog/logline"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// Bounds on waiting, so a hook answers (per fail_closed) within Timeout when the
// database is down, slow or another hook holds the loop's lock. They bound the
// store's waits, not fn's own work: the engine runs lifecycle hooks inside an
// Update, under their own timeouts. Options.Budget shortens them for a hook
// whose harness waits less (Codex's SessionEnd: 3 s).
const (
	// Timeout is all of one Update's or View's waits together: connecting,
	// the loop's lock (most of what is left before the commit's reserve, so
	// lock_timeout is the error seen), reads, storing and committing.
	Timeout = 5 * time.Second
	// IdleTimeout ends a transaction whose hook stopped (SIGSTOP, a hung
	// lifecycle hook) with the lock held; a killed hook's ends at once.
	IdleTimeout = 5 * time.Minute
)

// Options name the log inside the database.
type Options struct {
	// Project is the project's identity (project.Identity); required.
	Project string
	// Loop separates loops of one project that keep separate logs; "" is the
	// project's log, like the one JSONL file.
	Loop string
	// Budget bounds what one Update or View waits on the database, every
	// statement together (connecting, the lock, reads, storing, committing;
	// not fn's own work), so a hook answers inside its harness's timeout
	// for its event. 0 or more than Timeout: Timeout.
	Budget time.Duration
}

// Store is one (project, loop) log in a PostgreSQL database. It keeps one
// connection, opened on first use and reopened after a failure. A Store is safe
// for concurrent use; calls are serialised.
type Store[V any, P ViewOf[V]] struct {
	cfg     *pgx.ConnConfig
	where   string // the database for messages: URL without the password
	project string
	loop    string
	lockKey int64
	channel string

	budget time.Duration // see Options.Budget

	mu       sync.Mutex
	conn     *pgx.Conn
	lockWait time.Duration // the last Update's lock timeout, for its message
	warnings []string
	now      func() time.Time
	key      *eventlog.LineKey // once read (a key never changes once created)
	expect   []string          // sessions the next transaction reads (Expect)
}

// Open returns the store at url (postgres://…; the password from PGPASSWORD or
// ~/.pgpass). It does no I/O: it connects, and creates or migrates the schema,
// on first use.
func Open[V any, P ViewOf[V]](url string, o Options) (*Store[V, P], error) {
	where := Redact(url)
	if o.Project == "" {
		return nil, fmt.Errorf("event store %s: no project identity", where)
	}
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		// pgx's parse errors can quote the connection string: keep only the gist.
		return nil, fmt.Errorf("event store %s: invalid connection URL", where)
	}
	budget := o.Budget
	if budget <= 0 || budget > Timeout {
		budget = Timeout
	}
	// Half the budget per address tried, so a host that does not answer on
	// its first address (localhost: ::1, then 127.0.0.1) leaves time for the
	// next; the budget's deadline bounds the whole connect anyway.
	if cfg.ConnectTimeout <= 0 || cfg.ConnectTimeout > budget/2 {
		cfg.ConnectTimeout = budget / 2
	}
	cfg.RuntimeParams["application_name"] = "hook-loop"
	cfg.RuntimeParams["lock_timeout"] = fmt.Sprint(lockWait(budget).Milliseconds())
	cfg.RuntimeParams["statement_timeout"] = fmt.Sprint(budget.Milliseconds())
	// A hook stopped (not killed) inside a transaction must not hold the loop forever.
	cfg.RuntimeParams["idle_in_transaction_session_timeout"] = fmt.Sprint(IdleTimeout.Milliseconds())
	// One hook runs a handful of statements: the statement cache only costs memory.
	cfg.DefaultQueryExecMode = pgx.QueryExecModeExec
	cfg.StatementCacheCapacity = 0
	cfg.DescriptionCacheCapacity = 0
	h := fnv.New64a()
	h.Write([]byte("hook-loop\x00" + o.Project + "\x00" + o.Loop))
	sum := h.Sum64()
	hp := fnv.New64a()
	hp.Write([]byte(o.Project))
	return &Store[V, P]{
		cfg: cfg, where: where, project: o.Project, loop: o.Loop,
		lockKey: int64(sum),
		channel: fmt.Sprintf("hook_loop_%016x", hp.Sum64()),
		budget:  budget,
		now:     time.Now,
	}, nil
}

// Where names the database, without the password.
func (s *Store[V, P]) Where() string { return s.where }

// LockWait is the longest one Update waits on the database before it fails:
// its whole budget (Options.Budget), since the loop's lock is waited for out
// of what connecting has left of it (lockWait), and reads and the commit use
// the rest. A caller that must answer by a deadline sets it aside for each
// transaction still to come.
func (s *Store[V, P]) LockWait() time.Duration { return s.budget }

// Project is the project identity the store was opened with.
func (s *Store[V, P]) Project() string { return s.project }

// Channel is the LISTEN channel appends to this project notify.
func (s *Store[V, P]) Channel() string { return s.channel }

// Close drops the connection.
func (s *Store[V, P]) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.drop()
	return nil
}

func (s *Store[V, P]) drop() {
	if s.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_ = s.conn.Close(ctx)
		cancel()
		s.conn = nil
	}
}

func (s *Store[V, P]) warn(format string, args ...any) {
	s.warnings = append(s.warnings, fmt.Sprintf(format, args...))
}

// Warnings returns what the last call noticed and worked around, one line each.
func (s *Store[V, P]) Warnings() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.warnings...)
}

// connect returns the open connection, opening it and bringing the schema up to
// date when there is none.
func (s *Store[V, P]) connect(ctx context.Context) (*pgx.Conn, error) { return s.dial(ctx, true) }

// dial returns the open connection, else a new one; with schema set it
// checks (and migrates) the schema on a connection it opened. Update and
// View check it in their opening batch instead (begin).
func (s *Store[V, P]) dial(ctx context.Context, schema bool) (*pgx.Conn, error) {
	if s.conn != nil && !s.conn.IsClosed() {
		return s.conn, nil
	}
	s.conn = nil
	conn, err := pgx.ConnectConfig(ctx, s.cfg)
	if err != nil {
		return nil, err
	}
	if schema {
		if err := ensureSchema(ctx, conn, rebuildViews[V, P]); err != nil {
			_ = conn.Close(context.Background())
			return nil, err
		}
	}
	s.conn = conn
	return conn, nil
}

// fail wraps err once with the database's name and what it means, and drops the
// connection unless the server answered (a broken one is reopened next time).
func (s *Store[V, P]) fail(ctx context.Context, what string, err error) error {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		s.drop()
	}
	return s.describe(ctx, what, err)
}

// describe words a database error for a hook's one-line answer.
func (s *Store[V, P]) describe(ctx context.Context, what string, err error) error {
	var pe *pgconn.PgError
	errors.As(err, &pe)
	switch {
	case pe != nil && pe.Code == "55P03": // lock_not_available
		return fmt.Errorf("event store %s: %s: another hook held the loop's lock of project %q for over %s", s.where, what, s.project, s.lockWait.Round(time.Millisecond))
	case pe != nil && pe.Code == "57014": // query_canceled (statement_timeout)
		return fmt.Errorf("event store %s: %s: no answer within %s", s.where, what, s.budget)
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("event store %s: %s: no answer within %s: %w", s.where, what, s.budget, err)
	}
	return fmt.Errorf("event store %s: %s: %w", s.where, what, err)
}

// Tx is the view of the log inside Update or View. It is valid only during fn.
type Tx[V any, P ViewOf[V]] struct {
	s        *Store[V, P]
	w        *waits
	tx       pgx.Tx
	readOnly bool
	vs       *views[V, P]
	seq      int64 // last seq, appends included
	pending  []pendingEvent
	err      error // first read error; Update returns it
	tampered []eventlog.TamperNote
	rebuilt  bool
	pre      *opening[V] // what the opening batch read; consumed by start and row
}

type pendingEvent struct {
	seq       int64
	session   string
	eventType string
	hash      string
	line      []byte
}

// Update runs fn with the (project, loop) lock held and views up to date, then
// stores the events fn appended, their views and a notification in the same
// transaction. If fn returns an error nothing is stored.
func (s *Store[V, P]) Update(fn func(tx *Tx[V, P]) error) error { return s.run(false, fn) }

// View runs fn on a consistent snapshot; Append fails. It takes no lock.
func (s *Store[V, P]) View(fn func(tx *Tx[V, P]) error) error { return s.run(true, fn) }

func (s *Store[V, P]) run(readOnly bool, fn func(tx *Tx[V, P]) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.warnings = nil
	w := newWaits(s.budget)
	ctx, done := w.next(false)
	defer done()
	// The lock wait is what is left before the reserve, less a margin to read
	// the views; the opening batch sets it for this transaction with the lock
	// itself, so lock_timeout ends the wait with its own clear error before
	// the deadline does.
	s.lockWait = lockWait(w.left - w.reserve)
	prefetched := s.prefetch()
	ptx, pre, stage, err := s.open(ctx, readOnly)
	<-prefetched
	if err != nil {
		return s.fail(ctx, stage, err)
	}
	defer func() {
		// Bounded by the reserve: a failed call answers within the budget.
		rctx, rcancel := context.WithTimeout(context.Background(), min(time.Second, w.reserve))
		_ = ptx.Rollback(rctx)
		rcancel()
	}()
	if err := s.loadKey(); err != nil {
		return err
	}
	tx := &Tx[V, P]{s: s, w: w, tx: ptx, readOnly: readOnly, vs: newViews[V, P](), pre: pre}
	if err := tx.start(ctx); err != nil {
		return s.fail(ctx, "read project view", err)
	}
	done()
	if err := fn(tx); err != nil {
		return err
	}
	if tx.err != nil {
		return s.fail(context.Background(), "read", tx.err)
	}
	if readOnly || len(tx.pending) == 0 {
		return nil
	}
	ctx, done = w.next(true)
	defer done()
	b := &pgx.Batch{}
	for _, p := range tx.pending {
		b.Queue(insertEventSQL,
			s.project, s.loop, p.seq, p.session, p.eventType, p.hash, p.line)
	}
	if err := tx.vs.queue(b, s.project, s.loop, s.key); err != nil {
		return err
	}
	s.queueNotify(b, tx.seq)
	if stage, err := ptx.commitBatch(ctx, b); err != nil {
		return s.fail(ctx, fmt.Sprintf("%s %d events", stage, len(tx.pending)), err)
	}
	return nil
}

// prefetch has pgx build its type registry, and reads the log's key, while
// open waits on the server: in a hook's short process both are
// first-use costs (the registry ~0.3 ms of CPU) that would otherwise come after
// those waits. A key found is kept (a key never changes once created); one not
// there yet is looked for again under the loop's lock (run), where the hook
// that creates it is done. s.key is not to be touched before the channel
// closes.
func (s *Store[V, P]) prefetch() <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		defer close(ch)
		pgtype.NewMap()
		if s.key == nil {
			if k, err := eventlog.ReadStoreKey(s.keyID()); err == nil {
				s.key = k
			}
		}
	}()
	return ch
}

// open connects and begins the transaction with its opening reads (begin).
// A schema that is not current is brought up to date and the opening tried
// again.
func (s *Store[V, P]) open(ctx context.Context, readOnly bool) (*connTx, *opening[V], string, error) {
	conn, err := s.dial(ctx, false)
	if err != nil {
		return nil, nil, "connect", err
	}
	for attempt := 0; ; attempt++ {
		tx, pre, stage, err := s.begin(ctx, conn, readOnly)
		var pe *pgconn.PgError
		switch {
		case err != nil && attempt < 2 && (errors.Is(err, errSchemaVersion) || stage == "check schema" && errors.As(err, &pe) && pe.Code == "42P01"):
			// An older schema, or a new database with none yet: migrate, then again.
		case err != nil:
			return nil, nil, stage, err
		default:
			return tx, pre, "", nil
		}
		if err := ensureSchema(ctx, conn, rebuildViews[V, P]); err != nil {
			return nil, nil, "migrate schema", err
		}
	}
}

// queueNotify tells followers (LISTEN on the project's channel) that the log now
// ends at seq. The payload is small and fixed-size: followers read the events.
func (s *Store[V, P]) queueNotify(b *pgx.Batch, seq int64) {
	b.Queue(notifySQL, s.channel, notifyPayload(s.loop, seq))
}

// notifyPayload is {"loop": loop, "seq": seq}.
func notifyPayload(loop string, seq int64) string {
	b, _ := json.Marshal(struct {
		Loop string `json:"loop"`
		Seq  int64  `json:"seq"`
	}{loop, seq}) // a string and an integer: it cannot fail
	return string(b)
}

// row returns the view row of session id, reading it on first use; nil when the
// log has no such session.
func (tx *Tx[V, P]) row(id string) *viewRow[V] {
	if r, ok := tx.vs.sess[id]; ok {
		return r
	}
	if tx.err != nil {
		return nil
	}
	ctx, done := tx.w.next(false)
	defer done()
	var r viewRow[V]
	var ok bool
	var err error
	if l := tx.pre.session(id); l != nil {
		r, ok = l.row, l.ok
	} else {
		r, ok, err = loadRow[V, P](ctx, tx.tx, tx.s.project, tx.s.loop, id)
	}
	if err != nil {
		tx.err = err
		return nil
	}
	if !ok {
		return nil
	}
	if !tx.trust(id, &r) {
		if err := tx.rebuildSession(ctx, id, &r); err != nil {
			tx.err = err
			return nil
		}
	}
	tx.vs.sess[id] = &r
	return &r
}

// start reads the project view, folding again what it cannot vouch for.
func (tx *Tx[V, P]) start(ctx context.Context) error {
	s := tx.s
	var r viewRow[V]
	var ok bool
	var err error
	if tx.pre != nil {
		r, ok = tx.pre.project, tx.pre.found
	} else if r, ok, err = loadRow[V, P](ctx, tx.tx, s.project, s.loop, ""); err != nil {
		return err
	}
	if ok {
		if s.key == nil && r.mac != "" {
			s.warn("%s: MACs not checked: no key at %s (the hooks may keep theirs under another HOME or %s)", s.where, eventlog.StoreKeyPath(s.keyID()), eventlog.StateDirEnv)
		}
		if !tx.trust("", &r) {
			return tx.rebuild(ctx)
		}
		tx.vs.project = r
		tx.seq = r.lastSeq
	}
	return tx.catchUp(ctx)
}

// trust reports whether a stored view row may be believed: always while the
// log has no key here, else when its MAC is right.
func (tx *Tx[V, P]) trust(id string, r *viewRow[V]) bool {
	k := tx.s.key
	if r.bad {
		return false
	}
	if k == nil {
		return true
	}
	want, err := rowMAC[V, P](k, tx.s.project, tx.s.loop, id, r)
	return err == nil && want == r.mac
}

// rebuildSession folds session id's rows again into r (keeping its place in
// the session order), because its stored view does not carry a right MAC.
func (tx *Tx[V, P]) rebuildSession(ctx context.Context, id string, r *viewRow[V]) error {
	all, err := readRows(ctx, tx.tx, `SELECT seq, session_id, line FROM hook_loop_events WHERE project = $1 AND loop = $2 AND session_id = $3 ORDER BY seq`, tx.s.project, tx.s.loop, id)
	if err != nil {
		return err
	}
	vs := newViews[V, P]()
	vs.sess[id] = &viewRow[V]{ord: r.ord}
	j := newJudge(ctx, tx.tx, tx.s.project, tx.s.loop, tx.s.key)
	for _, x := range all {
		tx.judgeRow(vs, j, x.seq, id, x.line)
	}
	*r = *vs.sess[id]
	r.dirty = true
	tx.s.warn("%s: view of session %q rebuilt from its events", tx.s.where, id)
	return nil
}

// Tampered lists the rows of session id (and of no session) this call found
// not honoured; they are reported once, when found (Verify lists them all).
func (tx *Tx[V, P]) Tampered(id string) []eventlog.TamperNote {
	var out []eventlog.TamperNote
	for _, n := range tx.tampered {
		if n.Session == id || n.Session == "" {
			out = append(out, n)
		}
	}
	return out
}

// Session is the summary of session id, including events appended in this
// transaction; the zero view when the log has none.
func (tx *Tx[V, P]) Session(id string) V {
	if id != "" {
		if r := tx.row(id); r != nil {
			return r.view
		}
	}
	var zero V
	return zero
}

// Project is the fold of every event of the log (for loop.scope "project").
func (tx *Tx[V, P]) Project() V { return tx.vs.project.view }

// SessionIDs lists the log's sessions in first-seen order.
func (tx *Tx[V, P]) SessionIDs() []string {
	var ids []string
	if tx.err == nil {
		ctx, done := tx.w.next(false)
		defer done()
		rows, err := tx.tx.Query(ctx, `SELECT session_id FROM hook_loop_views WHERE project = $1 AND loop = $2 AND session_id <> '' ORDER BY ord`, tx.s.project, tx.s.loop)
		if err == nil {
			ids, err = pgx.CollectRows(rows, pgx.RowTo[string])
		}
		if err != nil {
			tx.err = err
		}
	}
	return append(ids, tx.vs.added...)
}

// Append fills e's SchemaVersion, EventID, Timestamp and PrevHash (the chain head
// of its session) when they are empty, exactly as eventlog does, and returns it as
// it will be stored. It counts in Session and Project at once and is stored when
// Update's fn returns nil.
func (tx *Tx[V, P]) Append(e eventlog.Event) (eventlog.Event, error) {
	where := tx.s.where
	if tx.readOnly {
		return eventlog.Event{}, errors.New("eventlog: Append inside View (read-only)")
	}
	if e.SessionID == "" {
		return eventlog.Event{}, fmt.Errorf("append to %s: event %q has no session_id", where, e.EventType)
	}
	if e.EventType == "" {
		return eventlog.Event{}, fmt.Errorf("append to %s: event of session %q has no event_type", where, e.SessionID)
	}
	if e.SchemaVersion == 0 {
		e.SchemaVersion = eventlog.SchemaVersion
	}
	if e.EventID == "" {
		e.EventID = eventlog.NewID()
	}
	if e.Timestamp == "" {
		e.Timestamp = tx.s.now().UTC().Format(eventlog.TimestampLayout)
	}
	if e.Payload == nil {
		e.Payload = map[string]any{}
	}
	if !utf8.ValidString(e.SessionID) {
		b, _ := json.Marshal(e.SessionID)
		_ = json.Unmarshal(b, &e.SessionID)
	}
	if tx.s.key == nil {
		ctx, done := tx.w.next(false)
		err := tx.createKey(ctx)
		done()
		if err != nil {
			return eventlog.Event{}, fmt.Errorf("append to %s: %w", where, err)
		}
	}
	r := tx.row(e.SessionID)
	if tx.err != nil {
		return eventlog.Event{}, fmt.Errorf("append to %s: read session %q: %w", where, e.SessionID, tx.err)
	}
	// The chain head, always: a keyed line that does not continue its session's
	// chain is not honoured.
	e.PrevHash, e.MAC = "", ""
	if r != nil {
		e.PrevHash = r.lastHash
	}
	line, err := encodeLine(&e, tx.s.key)
	if err != nil {
		return eventlog.Event{}, fmt.Errorf("append to %s: %w", where, err)
	}
	e.MAC = string(line[len(line)-2-64 : len(line)-2])
	// Fold the line as a reader will see it, not the caller's values, so the
	// views equal a fold of the stored lines.
	stored, err := logline.Parse(line)
	if err != nil {
		return eventlog.Event{}, fmt.Errorf("append to %s: %s event does not read back: %w", where, e.EventType, err)
	}
	hash := chainHash(line)
	tx.seq++
	tx.vs.add(&stored, stored.SessionID, tx.seq, hash)
	tx.pending = append(tx.pending, pendingEvent{seq: tx.seq, session: stored.SessionID, eventType: stored.EventType, hash: hash, line: line})
	return e, nil
}

// encodeLine is the JSONL log's line for e, without the newline, sealed under
// key unless it is nil.
func encodeLine(e *eventlog.Event, key *eventlog.LineKey) ([]byte, error) {
	// The file's own encoder, so the lines are the file's.
	line, err := logline.Append(nil, e)
	if err != nil {
		return nil, fmt.Errorf("encode %s event: %w", e.EventType, err)
	}
	line = line[:len(line)-1]
	if key != nil {
		line = key.Seal(line)
	}
	if len(line) > logline.MaxBytes {
		return nil, fmt.Errorf("%s event is %d bytes, over the %d-byte line limit", e.EventType, len(line), logline.MaxBytes)
	}
	return line, nil
}
