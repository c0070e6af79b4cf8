// Package overview keeps a live picture of every session of a project's event
// log: its state, what would advance it, whether it waits for a person, and the
// recent timeline of what happened. It is built once from the log's index and a
// bounded read of the log's end, then kept up to date from the lines appended
// since, so looking at it never re-reads a large log.
package overview

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	loopdsl "github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/loop/session"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/eventlog/logline"
	"github.com/hook-loop/hook-loop/eventlog/postgres"
	"github.com/tidwall/gjson"
)

// DefaultTimelineCap is how many timeline entries each session keeps.
const DefaultTimelineCap = 40

// DefaultBackscanBytes bounds how much of the log's end the first load reads for
// timelines; older entries are left to `hook-loop log --session`.
const DefaultBackscanBytes = 32 << 20

// Options configure a Watcher.
type Options struct {
	// Log is the JSONL log; Store, when set instead, the project's log in
	// PostgreSQL (whichever the project's hooks write).
	Log   *session.Log
	Store *postgres.Store[session.View, *session.View]
	Spec  *loopdsl.Spec // nil: states are shown without what advances them
	Root  string        // the project root, for the engine's descriptions

	TimelineCap   int   // entries kept per session (default DefaultTimelineCap)
	BackscanBytes int64 // bytes of the log's end read at start (default DefaultBackscanBytes)
	// StorePoll is how often Run reads the store without a notification of a
	// commit (default DefaultStorePoll): notifications can be lost with a
	// dropped connection.
	StorePoll time.Duration
}

// Session is one session as shown to a person.
type Session struct {
	ID      string `json:"session_id"`
	Short   string `json:"short"`
	Harness string `json:"harness,omitempty"`
	// Machine and Checkout are where the session runs (its loop_started),
	// which tells apart the checkouts sharing one project in a team's store.
	Machine     string   `json:"machine,omitempty"`
	Checkout    string   `json:"checkout,omitempty"`
	State       string   `json:"state"`
	Terminal    bool     `json:"terminal"`
	Waiting     bool     `json:"waiting"`
	Question    string   `json:"question,omitempty"`
	Paused      bool     `json:"paused"`
	Next        []string `json:"next,omitempty"`
	StopMessage string   `json:"stop_message,omitempty"`
	Evidence    int      `json:"evidence"`
	StopBlocks  int      `json:"stop_blocks"`
	Outcome     string   `json:"outcome,omitempty"`
	Forced      bool     `json:"forced,omitempty"`
	Disarmed    string   `json:"disarmed,omitempty"`
	// Cancelled is the person's reason when they cancelled the session.
	Cancelled string `json:"cancelled,omitempty"`
	// WouldBlocks counts what a warn- or audit-mode loop let through;
	// LastWouldBlock is the last one's reason.
	WouldBlocks    int     `json:"would_blocks,omitempty"`
	LastWouldBlock string  `json:"last_would_block,omitempty"`
	Events         int     `json:"events"`
	LastEventAt    string  `json:"last_event_at,omitempty"`
	Timeline       []Entry `json:"timeline"`
	// Older is true when earlier timeline entries exist but are not kept.
	Older bool `json:"older,omitempty"`
}

// Entry is one line of a session's timeline.
type Entry struct {
	Time  string `json:"time"`
	Kind  string `json:"kind"` // transition, rejected, stop_refused, evidence, outcome, waiting, operator, lifecycle, blocked, would_block
	Type  string `json:"event_type"`
	State string `json:"state"`
	Actor string `json:"actor"`
	Text  string `json:"text"`
	// Detail is the whole text when Text is its short form (a refused stop's
	// message), "" otherwise.
	Detail string `json:"detail,omitempty"`
}

// sessionData is what the Watcher knows beyond the index's summary.
type sessionData struct {
	harness  string
	machine  string
	checkout string
	question string  // from the last waiting_for_input
	timeline []Entry // oldest first, at most cap
	older    bool
	started  bool // the session's first event was seen: nothing older exists
}

// where keeps the machine and checkout a loop_started names.
func (d *sessionData) where(machine, checkout any) {
	if m, _ := machine.(string); m != "" {
		d.machine = m
	}
	if c, _ := checkout.(string); c != "" {
		d.checkout = c
	}
}

// Watcher is the live overview of one log. Its methods are safe for concurrent use.
type Watcher struct {
	opts Options
	text loopText

	mu       sync.Mutex
	ids      []string
	sums     map[string]summary
	data     map[string]*sessionData
	src      logSource
	version  uint64
	lineWarn string
}

// Open builds the overview of the log as it is now.
func Open(o Options) (*Watcher, error) {
	if o.TimelineCap <= 0 {
		o.TimelineCap = DefaultTimelineCap
	}
	if o.BackscanBytes <= 0 {
		o.BackscanBytes = DefaultBackscanBytes
	}
	w := &Watcher{opts: o, data: map[string]*sessionData{}, src: &fileSource{l: o.Log}}
	if o.Store != nil {
		if o.StorePoll <= 0 {
			o.StorePoll = DefaultStorePoll
		}
		w.src = &storeSource{s: o.Store, every: o.StorePoll}
	}
	if o.Spec != nil {
		w.text = loopText{eng: &engine.Engine{Spec: o.Spec, Root: o.Root}}
	}
	// The end is fixed before anything is read: the backward read covers what
	// lies before it and the follower everything after, so no line is missed or
	// shown twice.
	end, err := w.src.end()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", w.src.where(), err)
	}
	if err := w.refreshSummaries(); err != nil {
		return nil, err
	}
	if err := w.backscan(end); err != nil {
		return nil, err
	}
	if err := w.findHarnesses(end); err != nil {
		return nil, err
	}
	if err := w.src.follow(end, w.reset); err != nil {
		return nil, fmt.Errorf("open %s: %w", w.src.where(), err)
	}
	return w, nil
}

func (w *Watcher) projectScope() bool {
	return w.opts.Spec != nil && w.opts.Spec.Definition.Scope == loopdsl.ScopeProject
}

func (w *Watcher) refreshSummaries() error {
	ids, sums, err := readSummaries(w.src, w.projectScope())
	if err != nil {
		return fmt.Errorf("read %s: %w", w.src.where(), err)
	}
	w.mu.Lock()
	w.ids, w.sums = ids, sums
	w.mu.Unlock()
	return nil
}

// reset forgets the timelines of a log that was replaced or truncated; the
// follower reads the new one from its start.
func (w *Watcher) reset() {
	w.data = map[string]*sessionData{}
}

func (w *Watcher) session(id string) *sessionData {
	d := w.data[id]
	if d == nil {
		d = &sessionData{}
		w.data[id] = d
	}
	return d
}

// Version changes whenever the overview does.
func (w *Watcher) Version() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.version
}

// Poll applies the lines appended since the last call and reports whether there
// were any.
func (w *Watcher) Poll() (bool, error) {
	var lines int
	w.mu.Lock()
	err := w.src.poll(func(line []byte) error {
		lines++
		w.applyLine(line, false)
		return nil
	})
	w.mu.Unlock()
	if err != nil {
		return false, fmt.Errorf("follow %s: %w", w.src.where(), err)
	}
	if lines == 0 {
		return false, nil
	}
	if err := w.refreshSummaries(); err != nil {
		return false, err
	}
	w.mu.Lock()
	w.version++
	w.mu.Unlock()
	return true, nil
}

// Run polls until ctx ends, calling changed after every change: the file
// every follow interval, the store when it notifies a commit (and every
// storeInterval).
func (w *Watcher) Run(ctx context.Context, changed func()) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	wake := make(chan struct{}, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.src.run(ctx, func() {
			select {
			case wake <- struct{}{}:
			default:
			}
		})
	}()
	defer func() { cancel(); <-done }()
	for {
		ok, err := w.Poll()
		if err != nil {
			return err
		}
		if ok && changed != nil {
			changed()
		}
		select {
		case <-ctx.Done():
			return nil
		case <-wake:
		}
	}
}

// applyLine folds one log line into the timelines. Backwards (during the first
// load) entries are prepended and only while the session wants more.
func (w *Watcher) applyLine(line []byte, backwards bool) {
	if len(bytes.TrimSpace(line)) == 0 || eventlog.IsCheckpoint(line) {
		return // a checkpoint is the log's bookkeeping, not an event
	}
	f := gjson.GetManyBytes(line, "event_type", "session_id", "actor")
	typ, id := f[0].String(), f[1].String()
	kind := kindOf(typ)
	if kind == "" && f[2].String() == "lifecycle" {
		kind = "lifecycle" // what the project's lifecycle hooks decided and recorded
	}
	if kind == "" && typ != eventlog.TypeLoopStarted && typ != eventlog.TypeSessionInitialized {
		return
	}
	d := w.session(id)
	if backwards && (d.started || len(d.timeline) >= w.opts.TimelineCap) {
		if !d.started {
			d.older = true
		}
		return
	}
	e, err := logline.Parse(line)
	if err != nil {
		w.lineWarn = err.Error()
		return
	}
	switch typ {
	case eventlog.TypeLoopStarted, eventlog.TypeSessionInitialized:
		if h, _ := e.Payload["harness"].(string); h != "" {
			d.harness = h
		}
		d.where(e.Payload["machine"], e.Payload["checkout"])
		if backwards {
			d.started = true
		}
	case "waiting_for_input":
		if q, _ := e.Payload["question"].(string); q != "" && (!backwards || d.question == "") {
			d.question = q
		}
	}
	if kind == "" {
		kind = "lifecycle"
	}
	text, detail := describe(&e)
	entry := Entry{Time: e.Timestamp, Kind: kind, Type: typ, State: e.State, Actor: e.Actor, Text: text, Detail: detail}
	if backwards {
		d.timeline = append([]Entry{entry}, d.timeline...)
		return
	}
	d.timeline = append(d.timeline, entry)
	if over := len(d.timeline) - w.opts.TimelineCap; over > 0 {
		d.timeline = append(d.timeline[:0:0], d.timeline[over:]...)
		d.older = true
	}
}

// backscan fills the timelines from the end of the log backwards, until every
// session has its cap of entries or its start, within BackscanBytes.
func (w *Watcher) backscan(end int64) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	want := len(w.ids)
	full := func() bool {
		n := 0
		for _, id := range w.ids {
			if d := w.data[id]; d != nil && (d.started || len(d.timeline) >= w.opts.TimelineCap) {
				n++
			}
		}
		return n >= want
	}
	checked := 0
	reachedStart, err := w.src.backwards(end, w.opts.BackscanBytes, func(line []byte) bool {
		w.applyLine(line, true)
		checked++
		// Checking every session after each line would cost sessions × lines.
		return checked%256 != 0 || !full()
	})
	if err != nil {
		return fmt.Errorf("read %s: %w", w.src.where(), err)
	}
	for _, id := range w.ids {
		d := w.session(id)
		if reachedStart {
			d.started = true // even without a start event: nothing precedes the log
		}
		if !d.started {
			d.older = true // entries beyond the window may exist
		}
	}
	return nil
}

// findHarnesses reads the log forwards for the loop_started lines of sessions
// whose start the backward read did not reach. Only lines naming that event type
// are decoded, so this is a byte search, and it stops when all are found.
func (w *Watcher) findHarnesses(end int64) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	missing := map[string]bool{}
	for _, id := range w.ids {
		if d := w.data[id]; d == nil || d.harness == "" {
			missing[id] = true
		}
	}
	if len(missing) == 0 {
		return nil
	}
	err := w.src.starts(end, missing, func(line []byte) bool {
		id := gjson.GetBytes(line, "session_id").String()
		if !missing[id] {
			return true
		}
		f := gjson.GetManyBytes(line, "payload.harness", "payload.machine", "payload.checkout")
		if h := f[0].String(); h != "" {
			w.session(id).harness = h
		}
		w.session(id).where(f[1].Value(), f[2].Value())
		delete(missing, id)
		return len(missing) > 0
	})
	if err != nil {
		return fmt.Errorf("read %s: %w", w.src.where(), err)
	}
	return nil
}

// Sessions returns every session, the ones that need a person first, then the
// most recently active.
func (w *Watcher) Sessions() []Session {
	w.mu.Lock()
	defer w.mu.Unlock()
	short := ShortIDs(w.ids)
	out := make([]Session, 0, len(w.ids))
	for _, id := range w.ids {
		out = append(out, w.describe(id, short[id]))
	}
	sort.SliceStable(out, func(a, b int) bool {
		if out[a].Waiting != out[b].Waiting {
			return out[a].Waiting
		}
		return out[a].LastEventAt > out[b].LastEventAt
	})
	return out
}

// Session returns one session by its full id.
func (w *Watcher) Session(id string) (Session, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.sums[id]; !ok {
		return Session{}, false
	}
	return w.describe(id, ShortIDs(w.ids)[id]), true
}

// Definition is the loop the sessions run, nil when none was loaded.
func (w *Watcher) Definition() *loopdsl.Definition { return w.text.def() }

func (w *Watcher) describe(id, short string) Session {
	s := w.sums[id]
	d := w.data[id]
	if d == nil {
		d = &sessionData{}
	}
	r := Session{ID: id, Short: short, Harness: d.harness, Machine: d.machine, Checkout: d.checkout, State: s.State, Paused: s.Paused,
		Cancelled: s.Cancelled, WouldBlocks: s.WouldBlocks, LastWouldBlock: s.LastWouldBlock,
		Evidence: s.Evidence, StopBlocks: s.StopBlocks, Outcome: s.Outcome, Forced: s.OutcomeForced,
		Disarmed: s.Disarmed, Events: s.Events, LastEventAt: s.LastTimestamp,
		Timeline: append([]Entry(nil), d.timeline...), Older: d.older}
	if def := w.text.def(); def != nil {
		if r.State == "" {
			r.State = def.InitialState
		}
		r.Terminal = def.IsTerminal(r.State)
		r.Waiting = !r.Terminal && s.Outcome == "" && def.WaitsForHumanIn(r.State)
		r.Next = w.text.next(r.State)
		if r.Outcome == "" && r.Disarmed == "" {
			r.StopMessage = w.text.stopMessage(r.State, r.Evidence)
		}
		if r.Waiting {
			r.Question = d.question
			if r.Question == "" {
				r.Question = w.text.question(r.State)
			}
		}
	}
	return r
}

// Warning is the last log line that could not be read, "" when none.
func (w *Watcher) Warning() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lineWarn
}
