// Package operator carries out what a person asks of a session from outside
// the harness — pause, resume, cancel, approve, reject, advance, reset — for
// the CLI commands and the board's buttons alike. Each action is recorded in
// the session's log with actor "person" and, where it moves the loop, goes
// through the engine's one transition core; the session's next hook honours it.
package operator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/hook"
	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/loop/session"
)

// Actor is who the log says acted.
const Actor = "person"

// Actions, as the CLI commands and the board's buttons name them.
const (
	Pause   = "pause"
	Resume  = "resume"
	Cancel  = "cancel"
	Approve = "approve"
	Reject  = "reject"
	Advance = "advance"
	Reset   = "reset"
)

// Actions lists every action.
var Actions = []string{Pause, Resume, Cancel, Approve, Reject, Advance, Reset}

// Request is one thing a person asks.
type Request struct {
	Action  string
	Session string
	Reason  string
	// Event is advance's loop event; Force skips its guards (recorded).
	Event string
	Force bool
	// Source says where the request came from ("cli", "board").
	Source string
}

// Result is what an action did.
type Result struct {
	Session  string
	From, To string
	Applied  bool   // a transition was taken (approve, reject, advance, reset)
	Outcome  string // the loop's outcome when the action ended it
}

// ErrRefused marks a request the session's state does not allow (approve
// outside a waiting state, a guard missing, an ended session).
var ErrRefused = errors.New("refused")

// Log is the event log the controls read and append to: the JSONL file
// (FileLog) or the project's log in PostgreSQL — whichever the project's hooks
// write, so a person's action and a hook's decision take the same lock. Update
// runs a read-decide-append in one exclusive transaction; View reads.
// LockWait is the longest an Update waits for the lock (hook.Store's), which
// an action with a deadline sets aside for each transaction still to come.
type Log interface {
	Update(fn func(tx engine.Tx) error) error
	View(fn func(tx engine.Tx) error) error
	LockWait() time.Duration
}

// FileLog is the JSONL log as a Log.
func FileLog(l *session.Log) Log { return fileLog{l} }

type fileLog struct{ l *session.Log }

func (f fileLog) Update(fn func(tx engine.Tx) error) error {
	return f.l.Update(func(tx session.Tx) error { return fn(tx) })
}

func (f fileLog) View(fn func(tx engine.Tx) error) error {
	return f.l.View(func(tx session.Tx) error { return fn(tx) })
}

func (f fileLog) LockWait() time.Duration { return f.l.LockWait() }

// Controls applies requests to the sessions of one log under one loop.
type Controls struct {
	Log    Log
	Engine *engine.Engine // nil: the loop file did not load
}

// Do is Apply for the board's buttons (board.Controls).
func (c Controls) Do(ctx context.Context, sessionID, action, reason string) error {
	_, err := c.Apply(ctx, Request{Action: action, Session: sessionID, Reason: reason, Source: "board"})
	return err
}

// Apply carries out r in one exclusive transaction of the log. The user's
// lifecycle hooks (the Engine's) are asked first, as for a prompt
// (input_received, source person), and see the transitions it makes
// (phase_changed, waiting_for_input, loop_complete, with actor person); their
// executors run between transactions of the log, as a hook's do
// (engine.Staged, engine.Passes), and what they decide is applied with the
// action, once. A deadline on ctx (a board request's) is kept as a hook's is:
// chains run under the lock, within the locked budget, once it leaves too
// little time for an unlocked one and the passes after it.
func (c Controls) Apply(ctx context.Context, r Request) (Result, error) {
	if !slices.Contains(Actions, r.Action) {
		return Result{}, fmt.Errorf("unknown action %q (want one of %v)", r.Action, Actions)
	}
	if c.Engine == nil {
		return Result{}, errors.New("the loop file did not load; fix it first (hook-loop validate)")
	}
	eng := *c.Engine // a copy: the board serves requests concurrently
	var stage *engine.Staged
	if eng.Lifecycle != nil {
		stage = engine.NewStaged(eng.Lifecycle)
		eng.Lifecycle = stage
	}
	c.Engine = &eng
	var res Result
	var refused error
	// A chain run under the lock (the last pass, or when ctx's deadline
	// leaves no time for more) is capped as a hook's is, so another
	// session's hook waiting for the lock answers.
	passes := engine.Passes{Stage: stage, Budget: hook.LockedLifecycleBudget, LockWait: c.Log.LockWait()}
	err := passes.Run(ctx, func() error {
		refused = nil
		res = Result{Session: r.Session}
		return c.Log.Update(func(tx engine.Tx) error {
			ctx, cancel := context.WithTimeout(ctx, hook.LockedLifecycleBudget)
			defer cancel()
			v := tx.Session(r.Session)
			if v.Events == 0 {
				return refusedf("no session %q in the log", r.Session)
			}
			if err := c.allowed(tx, r, v); err != nil {
				return err
			}
			proceed, why, err := eng.PersonInput(ctx, tx, r.Session, r.Action, r.Event, r.Reason)
			if stage.Missed() {
				return engine.ErrStaged
			}
			if err != nil {
				return err
			}
			if !proceed {
				// Committed: the refusal and the hooks' records are the log's.
				refused = refusedf("%s refused by a lifecycle hook at input_received: %s", r.Action, why)
				return nil
			}
			out, err := c.apply(ctx, tx, r, v)
			if stage.Missed() {
				return engine.ErrStaged
			}
			res.From, res.To, res.Applied, res.Outcome = out.From, out.To, out.Applied, out.Outcome
			return err
		})
	})
	if err == nil && refused != nil {
		return Result{Session: r.Session}, refused
	}
	var late *engine.OutOfTimeError
	if errors.As(err, &late) {
		// Nothing was applied: say what the deadline cut short.
		return res, fmt.Errorf("%s session %s: not applied: %w", r.Action, r.Session, err)
	}
	return res, err
}

// allowed refuses what the session's standing makes meaningless.
func (c Controls) allowed(tx engine.Tx, r Request, v session.View) error {
	switch {
	case r.Action == Reset:
		return nil
	case v.Cancelled != "":
		return refusedf("session %s was cancelled (hook-loop reset starts it again)", r.Session)
	case r.Action == Cancel && c.ended(tx, r.Session):
		return refusedf("session %s has ended in state %s (outcome %s)", r.Session, c.Engine.State(tx, r.Session), v.Outcome)
	case r.Action == Pause && v.Paused:
		return refusedf("session %s is already paused", r.Session)
	case r.Action == Resume && !v.Paused:
		return refusedf("session %s is not paused", r.Session)
	}
	return nil
}

func (c Controls) apply(ctx context.Context, tx engine.Tx, r Request, v session.View) (engine.Result, error) {
	e := c.Engine
	rec := &engine.Record{Type: eventType(r.Action), Actor: Actor, Payload: payload(r)}
	in := engine.LoopEvent{Record: rec, Actor: Actor, Driver: "operator", Command: r.Action}
	switch r.Action {
	case Pause, Resume:
		return e.Apply(ctx, tx, r.Session, in)
	case Cancel:
		return e.Cancel(ctx, tx, r.Session, in)
	case Reset:
		return e.Reset(ctx, tx, r.Session, in)
	case Approve, Reject:
		state := e.State(tx, r.Session)
		def := e.Spec.Definition
		a, ok := def.ApprovalIn(state)
		if !def.WaitsForHumanIn(state) || !ok {
			return engine.Result{}, refusedf("session %s is in state %q, which does not wait for a person's approval (loop.approval names the states that do)", r.Session, state)
		}
		in.Event = a.Approve
		if r.Action == Reject {
			in.Event = a.Reject
			if in.Event == "" {
				return engine.Result{}, refusedf("state %q names no reject event in loop.approval", state)
			}
		}
		rec.Payload["event"] = in.Event
	case Advance:
		if r.Event == "" {
			return engine.Result{}, errors.New("advance needs a loop event")
		}
		if !e.Spec.Definition.HasEvent(r.Event) {
			return engine.Result{}, refusedf("%q is not an event of loop %s (events: %v)", r.Event, e.Spec.Definition.ID, e.Spec.Definition.Events)
		}
		in.Event, in.Force = r.Event, r.Force
	}
	in.EvidenceGrants = true
	in.Payload = map[string]any{"by": Actor}
	res, err := e.Apply(ctx, tx, r.Session, in)
	if err == nil && !res.Applied {
		reason := res.Reason
		if len(res.Missing) > 0 {
			reason += " (--force applies it anyway, recorded as forced)"
		}
		// The refusal is in the log too (transition_rejected); the person
		// hears it now.
		return res, refusedf("%s in state %q: %s", in.Event, res.From, reason)
	}
	return res, err
}

// refusal is an ErrRefused with its own words (no "refused:" prefix).
type refusal struct{ msg string }

func (r *refusal) Error() string        { return r.msg }
func (r *refusal) Is(target error) bool { return target == ErrRefused }

func refusedf(format string, args ...any) error { return &refusal{fmt.Sprintf(format, args...)} }

func eventType(action string) string {
	switch action {
	case Pause:
		return eventlog.TypeOperatorPaused
	case Resume:
		return eventlog.TypeOperatorResumed
	case Cancel:
		return eventlog.TypeOperatorCancelled
	case Approve:
		return eventlog.TypeOperatorApproved
	case Reject:
		return eventlog.TypeOperatorRejected
	case Reset:
		return eventlog.TypeOperatorReset
	}
	return eventlog.TypeOperatorAdvanced
}

func payload(r Request) map[string]any {
	p := map[string]any{}
	if r.Source != "" {
		p["source"] = r.Source
	}
	if r.Reason != "" {
		p["reason"] = r.Reason
	}
	if r.Action == Advance {
		p["event"] = r.Event
		if r.Force {
			p["forced"] = true
		}
	}
	return p
}

// ended reports whether the session's loop is in a terminal state. An outcome
// alone does not end it: a capped or forced session goes on at the next prompt.
func (c Controls) ended(tx engine.Tx, sid string) bool {
	return c.Engine.Spec.Definition.IsTerminal(c.Engine.State(tx, sid))
}

// Live are the sessions a person can act on without naming one: started, not
// in a terminal state, not cancelled, gated; in log order of first sight.
func (c Controls) Live(tx engine.Tx) []string {
	var out []string
	for _, id := range tx.SessionIDs() {
		v := tx.Session(id)
		if v.Started && v.Cancelled == "" && v.Disarmed == "" && !c.ended(tx, id) {
			out = append(out, id)
		}
	}
	return out
}
