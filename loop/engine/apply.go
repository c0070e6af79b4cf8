package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/loop"
	"github.com/hook-loop/hook-loop/loop/dsl"
)

// The one transition core. Every loop event — a rule's emit in Handle, a
// simulated agent step or verdict, an operator's advance — goes through
// handling.apply; what differs between the paths is an input the driver
// chooses (which guards it grants, what a refusal does), never a second copy
// of the state machine.

// RejectPolicy says what a refused loop event does.
type RejectPolicy int

const (
	// Continue ignores an event the state has no transition for, and records a
	// transition refused for missing guards; the loop stays where it is. A hook
	// uses it: the agent goes on working and may satisfy the guard later.
	Continue RejectPolicy = iota
	// Halt records the refusal and halts the loop in its stop state, as the
	// Python original's simulation did (StateMachine.apply raised, the runtime
	// stopped).
	Halt
)

// Record is a line the driver wants in the log before its event applies (a
// verdict, registered evidence), the way a rule's record precedes its emit.
type Record struct {
	Type    string
	Actor   string // "": hook-loop
	Payload map[string]any
}

// LoopEvent is one event of the loop's own vocabulary (dsl.Definition.Events),
// not a harness's.
type LoopEvent struct {
	// Record, when set, is appended first; an event with only a Record records
	// and applies nothing.
	Record *Record
	// Event is the loop event to apply ("": none).
	Event string
	// Guards are the guards the caller grants for this event.
	Guards []string
	// EvidenceGrants grants evidence_bound_to_criteria once the session has
	// recorded evidence (what a hook does); without it only Guards can grant it
	// (what the simulation does: an evaluator PASS grants it).
	EvidenceGrants bool
	// Force skips the guard check; the transition is recorded as forced.
	Force bool
	// Actor names who applied the event in the log ("": driver).
	Actor string
	// Payload is merged into the state_transitioned payload (from, event and to
	// are the engine's and win).
	Payload  map[string]any
	OnReject RejectPolicy
	// RunID groups the lines in the log ("": a new one).
	RunID string
	// Driver names what sends loop events instead of a harness ("simulate", an
	// operator's command); it stands for the harness in loop_started and in
	// the lifecycle hooks' facts.
	Driver string
	// Command is the person's control carrying the event out (approve,
	// advance, ...), for the lifecycle hooks' facts; "" for a driver.
	Command string
}

// Result is what applying a loop event did.
type Result struct {
	From, To string // the state before and after
	Applied  bool   // a transition was taken
	// Reason says why the event was refused ("" when it applied or only recorded).
	Reason string
	// Missing are the guards that refused it, sorted.
	Missing []string
	// Halted is set when the refusal halted the loop in its stop state.
	Halted bool
	// Outcome is the loop's outcome when this event ended it.
	Outcome string
	// Messages are the person-facing lines the event produced (phase changes,
	// completion, waiting).
	Messages []string
}

// ErrNoStopState is returned when the loop must halt but has no stop state.
var ErrNoStopState = errors.New("loop.stop_state is required for DSL simulation")

// State is the state the engine decides in for sessionID: the session's (or the
// project's, for a project-scoped loop), the initial state before any event.
func (e *Engine) State(tx Tx, sessionID string) string {
	h := &handling{e: e, tx: tx, sid: SessionKey(sessionID)}
	h.refresh()
	return h.state
}

// Apply applies one loop event to the session, as a rule's emit does in Handle:
// it starts the loop on the session's first event, appends in.Record, looks up
// the transition, checks its guards, records and takes it (firing the lifecycle
// points it reaches and recording the outcome of a terminal state), or refuses
// it by in.OnReject. Run it inside the log's exclusive transaction.
func (e *Engine) Apply(ctx context.Context, tx Tx, sessionID string, in LoopEvent) (Result, error) {
	h := e.start(ctx, tx, sessionID, in)
	if err := h.ensureArmed(); err != nil {
		return Result{}, err
	}
	res, err := h.apply(in)
	res.Messages = h.system
	return res, err
}

// Halt ends the loop in its stop state for the reason in.Record says (the
// simulation's exhausted budget or blocked transition, an operator's cancel),
// recorded in the stop state, and records the outcome "stopped"; in.Event must
// be empty. Run it inside the log's exclusive transaction.
func (e *Engine) Halt(ctx context.Context, tx Tx, sessionID string, in LoopEvent) (Result, error) {
	if in.Record == nil || in.Event != "" {
		return Result{}, errors.New("halt needs a record of why, and no event")
	}
	if e.Spec.Definition.StopState == "" {
		return Result{}, ErrNoStopState
	}
	h := e.start(ctx, tx, sessionID, in)
	if err := h.ensureArmed(); err != nil {
		return Result{}, err
	}
	res := Result{From: h.state}
	if err := h.halt(*in.Record); err != nil {
		return res, err
	}
	res.To, res.Halted, res.Outcome, res.Messages = h.state, true, h.outcome, h.system
	return res, nil
}

// start is the handling of a loop event that no harness sent.
func (e *Engine) start(ctx context.Context, tx Tx, sessionID string, in LoopEvent) *handling {
	sid := SessionKey(sessionID)
	h := &handling{e: e, ctx: ctx, tx: tx, ev: &loop.HookEvent{Harness: in.Driver, SessionID: sid, Cwd: e.Root}, sid: sid, runID: in.RunID,
		actor: in.Actor, command: in.Command}
	if h.actor == "" {
		h.actor = in.Driver
	}
	if h.runID == "" {
		h.runID = eventlog.NewID()
	}
	h.refresh()
	return h
}

// ensureArmed starts the loop for a session seen for the first time, as Handle
// does, and refuses a session whose loop is disarmed.
func (h *handling) ensureArmed() error {
	if !h.tx.Session(h.sid).Started {
		if err := h.startLoop(); err != nil {
			return err
		}
	}
	if d := h.tx.Session(h.sid).Disarmed; d != "" {
		return fmt.Errorf("session %s is not gated: %s", h.sid, d)
	}
	return nil
}

// apply is the transition core (see LoopEvent).
func (h *handling) apply(in LoopEvent) (Result, error) {
	res := Result{From: h.state, To: h.state}
	if in.Record != nil {
		actor := in.Record.Actor
		if actor == "" {
			actor = "hook-loop"
		}
		if err := h.append(in.Record.Type, actor, copyPayload(in.Record.Payload)); err != nil {
			return res, err
		}
	}
	if in.Event == "" {
		return res, nil
	}
	actor := in.Actor
	if actor == "" {
		actor = "driver"
	}
	def := h.e.Spec.Definition
	t, ok := def.TransitionFor(h.state, in.Event)
	if !ok {
		res.Reason = fmt.Sprintf("No transition for state='%s', event='%s'", h.state, in.Event)
		if in.OnReject == Halt {
			return h.refuse(res, in.Event, actor)
		}
		return res, nil
	}
	if !in.Force {
		res.Missing = t.MissingGuards(func(g string) bool {
			return slices.Contains(in.Guards, g) || in.EvidenceGrants && g == dsl.GuardEvidenceBound && h.view().Evidence > 0
		})
	}
	if len(res.Missing) > 0 {
		res.Reason = dsl.MissingGuardsReason(res.Missing)
		if in.OnReject == Halt {
			return h.refuse(res, in.Event, actor)
		}
		err := h.append(eventlog.TypeTransitionRejected, actor, map[string]any{
			"from": h.state, "event": in.Event, "reason": res.Reason,
		})
		return res, err
	}
	payload := copyPayload(in.Payload)
	if in.Force {
		payload["forced"] = true
	}
	if err := h.transition(t, actor, payload); err != nil {
		return res, err
	}
	res.To, res.Applied, res.Outcome = h.state, true, h.outcome
	return res, nil
}

// refuse halts the loop for an event the machine refused.
func (h *handling) refuse(res Result, event, actor string) (Result, error) {
	err := h.halt(Record{Type: eventlog.TypeTransitionRejected, Actor: actor, Payload: map[string]any{
		"from": h.state, "event": event, "reason": res.Reason,
	}})
	res.To, res.Halted, res.Outcome = h.state, err == nil, h.outcome
	return res, err
}

// halt moves the loop to its stop state: why is recorded in that state (which
// is how the session's view learns it, as the simulation always recorded a
// stop), then the outcome.
func (h *handling) halt(why Record) error {
	def := h.e.Spec.Definition
	if def.StopState == "" {
		return ErrNoStopState
	}
	h.state = def.StopState
	actor := why.Actor
	if actor == "" {
		actor = "hook-loop"
	}
	if err := h.append(why.Type, actor, copyPayload(why.Payload)); err != nil {
		return err
	}
	return h.complete(terminalOutcome(def, h.state), false)
}

func copyPayload(p map[string]any) map[string]any {
	out := make(map[string]any, len(p)+3)
	for k, v := range p {
		out[k] = v
	}
	return out
}

// Cancel ends the loop for the session where it stands, with the outcome
// "cancelled": a person took the session out of the loop's hands, and the
// engine gates none of its later events (in.Record says why, e.g. the
// operator's cancel). Run it inside the log's exclusive transaction.
func (e *Engine) Cancel(ctx context.Context, tx Tx, sessionID string, in LoopEvent) (Result, error) {
	h, err := e.startRecorded(ctx, tx, sessionID, in, "cancel")
	if err != nil {
		return Result{}, err
	}
	res, err := h.apply(LoopEvent{Record: in.Record})
	if err != nil {
		return res, err
	}
	if err := h.completeWith(OutcomeCancelled, map[string]any{"by": in.Record.Actor}); err != nil {
		return res, err
	}
	res.Outcome, res.Messages = h.outcome, h.system
	return res, nil
}

// Reset returns the session to the loop's initial state: in.Record is
// recorded there (its type must make the session's view take the record's
// state, as eventlog.TypeOperatorReset does). Run it inside the log's
// exclusive transaction.
func (e *Engine) Reset(ctx context.Context, tx Tx, sessionID string, in LoopEvent) (Result, error) {
	h, err := e.startRecorded(ctx, tx, sessionID, in, "reset")
	if err != nil {
		return Result{}, err
	}
	res := Result{From: h.state}
	h.state = e.Spec.Definition.InitialState
	_, err = h.apply(LoopEvent{Record: in.Record})
	res.To, res.Applied = h.state, err == nil
	if err == nil && res.From != res.To {
		// The loop's state changed by a person's hand: phase_changed, as
		// for any transition.
		err = h.firePhaseChanged(res.From, res.To, "reset")
	}
	res.Messages = h.system
	return res, err
}

// OutcomeCancelled is the outcome of a loop a person cancelled.
const OutcomeCancelled = "cancelled"

// startRecorded starts the handling of an action that records why and applies
// no event (cancel, reset), on an armed session.
func (e *Engine) startRecorded(ctx context.Context, tx Tx, sessionID string, in LoopEvent, what string) (*handling, error) {
	if in.Record == nil || in.Event != "" {
		return nil, fmt.Errorf("%s needs a record of why, and no event", what)
	}
	h := e.start(ctx, tx, sessionID, in)
	if err := h.ensureArmed(); err != nil {
		return nil, err
	}
	return h, nil
}
