package sim

import (
	"errors"
	"fmt"
	"slices"

	"github.com/google/uuid"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/session"
)

// DefaultSimulationSession is the session id simulate uses unless told otherwise,
// as the Python original did.
const DefaultSimulationSession = "session-1"

// EvaluatingState is the state in which the simulation asks the evaluator for a
// verdict instead of the agent for a step (the Python original's convention).
const EvaluatingState = "evaluating"

// Simulation event types the runtime writes besides eventlog's own.
const (
	TypeVerdictRecorded   = "verdict_recorded"
	TypeTransitionBlocked = "transition_blocked"
	TypeBudgetExhausted   = "budget_exhausted"
)

// ErrNoStopState is returned when a simulation must stop but the loop has no
// stop state to stop in.
var ErrNoStopState = errors.New("loop.stop_state is required for DSL simulation")

// Runtime drives a loop with a scripted agent and evaluator, recording every step
// in an event log: a deterministic way to try a loop without a model. It keeps
// the Python original's LoopRuntime semantics (see RunUntilStop).
type Runtime struct {
	Definition *dsl.Definition
	Log        *session.Log
	Agent      *FakeAgent
	Evaluator  *FakeEvaluator
	Hooks      *HookBus // nil: no hooks
	SessionID  string   // "": DefaultSimulationSession
	RunID      string   // "": a new UUID per Runtime

	state string
}

// NewRuntime builds a runtime for session DefaultSimulationSession; set the
// exported fields to change the session or add hooks before running it.
func NewRuntime(def *dsl.Definition, log *session.Log, agent *FakeAgent, evaluator *FakeEvaluator) *Runtime {
	return &Runtime{Definition: def, Log: log, Agent: agent, Evaluator: evaluator}
}

// State is the current state (after RunUntilStop; "" before).
func (r *Runtime) State() string { return r.state }

// RunUntilStop runs turns until the loop reaches a terminal state or the budget
// runs out, and returns the final state. Like the Python original:
//   - the state is recovered from the log's events of this session only; a session
//     without events starts with session_initialized;
//   - each turn fires before_turn, then either asks the evaluator (in the
//     "evaluating" state: PASS → evaluator_passed with the guard
//     evidence_bound_to_criteria granted, otherwise evaluator_failed) or takes
//     the agent's next step for the state (evidence_recorded also appends
//     evidence_registered); reaching "evaluating" by a step evaluates at once;
//   - every transition first fires before_state_transition; a block/pause/replan
//     stops the run with transition_blocked, a transition the machine refuses
//     (no such transition, a missing guard) with transition_rejected;
//   - max_no_progress_turns turns in a row without a transition, or max_turns
//     turns, stop it with budget_exhausted.
//
// Stopping moves the loop to the stop state. An error means the log could not be
// written or the evaluator ran out of verdicts.
func (r *Runtime) RunUntilStop(b dsl.Budget) (string, error) {
	if r.Definition == nil || r.Log == nil {
		return "", errors.New("simulation needs a loop definition and an event log")
	}
	if r.SessionID == "" {
		r.SessionID = DefaultSimulationSession
	}
	if r.RunID == "" {
		r.RunID = uuid.NewString()
	}
	if err := r.begin(); err != nil {
		return "", err
	}
	maxNoProgress := b.MaxNoProgressTurns
	if maxNoProgress <= 0 {
		maxNoProgress = 2 // the Python original's RuntimeBudget default
	}
	noProgress := 0
	for turn := 0; turn < b.MaxTurns; turn++ {
		if r.terminal() {
			return r.state, nil
		}
		before := r.Hooks.Fire(StageBeforeTurn, HookContext{State: r.state, Payload: map[string]any{}})
		if !before.Allowed() {
			return r.stop(TypeTransitionBlocked, map[string]any{"messages": before.Messages})
		}
		progressed := false
		if r.state == EvaluatingState {
			ok, err := r.evaluate()
			if err != nil {
				return r.state, err
			}
			progressed = ok
		} else {
			var steps []dsl.AgentStep
			if r.Agent != nil {
				steps = r.Agent.NextSteps(r.state)
			}
			for _, step := range steps {
				ok, err := r.applyStep(step)
				if err != nil {
					return r.state, err
				}
				progressed = ok || progressed
				if r.terminal() {
					return r.state, nil
				}
				if r.state == EvaluatingState {
					ok, err := r.evaluate()
					if err != nil {
						return r.state, err
					}
					progressed = ok || progressed
				}
				if r.terminal() {
					return r.state, nil
				}
			}
		}
		if r.terminal() {
			return r.state, nil
		}
		if progressed {
			noProgress = 0
			continue
		}
		noProgress++
		if noProgress >= maxNoProgress {
			return r.stop(TypeBudgetExhausted, map[string]any{"reason": "no productive event"})
		}
	}
	if r.terminal() {
		return r.state, nil
	}
	return r.stop(TypeBudgetExhausted, map[string]any{"reason": "max_turns"})
}

// begin recovers the session's state and initializes a new session, in one
// locked step so two runtimes on one session cannot both initialize it.
func (r *Runtime) begin() error {
	return r.Log.Update(func(tx session.Tx) error {
		s := tx.Session(r.SessionID)
		r.state = s.State
		if r.state == "" {
			r.state = r.Definition.InitialState
		}
		if s.Events > 0 {
			return nil
		}
		_, err := tx.Append(r.event(eventlog.TypeSessionInitialized, "runtime", map[string]any{"initial_state": r.state}))
		return err
	})
}

func (r *Runtime) terminal() bool { return r.Definition.IsTerminal(r.state) }

func (r *Runtime) evaluate() (bool, error) {
	if r.Evaluator == nil {
		return false, ErrNoVerdicts
	}
	v, err := r.Evaluator.Evaluate(map[string]any{"state": r.state})
	if err != nil {
		return false, err
	}
	if err := r.append(TypeVerdictRecorded, "evaluator", map[string]any{"status": v.Status, "details": v.Details}); err != nil {
		return false, err
	}
	event, guards := "evaluator_failed", []string(nil)
	if v.Status == dsl.VerdictPass {
		event, guards = "evaluator_passed", []string{dsl.GuardEvidenceBound}
	}
	return r.transition(event, map[string]any{"verdict": v.Status}, guards)
}

func (r *Runtime) applyStep(step dsl.AgentStep) (bool, error) {
	if step.Event == "evidence_recorded" {
		if err := r.append(eventlog.TypeEvidenceRegistered, "agent", copyPayload(step.Payload)); err != nil {
			return false, err
		}
	}
	return r.transition(step.Event, step.Payload, nil)
}

func (r *Runtime) transition(event string, payload map[string]any, guards []string) (bool, error) {
	d := r.Hooks.Fire(StageBeforeStateTransition, HookContext{State: r.state, Event: event, Payload: copyPayload(payload)})
	if !d.Allowed() {
		_, err := r.stop(TypeTransitionBlocked, map[string]any{"messages": d.Messages})
		return false, err
	}
	next, reason := simulationApply(r.Definition, r.state, event, guards)
	if reason != "" {
		_, err := r.stop(eventlog.TypeTransitionRejected, map[string]any{"reason": reason, "event": event})
		return false, err
	}
	from := r.state
	r.state = next
	p := map[string]any{"from": from, "event": event, "to": next}
	// The Python original built {"from", "event", "to", **payload}: payload keys win.
	for k, v := range payload {
		p[k] = v
	}
	return true, r.append(eventlog.TypeStateTransitioned, "runtime", p)
}

// simulationApply is the Python original's StateMachine.apply: the transition's target,
// or the reason it is refused (in the Python original's words).
func simulationApply(d *dsl.Definition, state, event string, satisfied []string) (string, string) {
	t, ok := d.TransitionFor(state, event)
	if !ok {
		return "", fmt.Sprintf("No transition for state='%s', event='%s'", state, event)
	}
	missing := t.MissingGuards(func(g string) bool { return slices.Contains(satisfied, g) })
	if len(missing) > 0 {
		return "", dsl.MissingGuardsReason(missing)
	}
	return t.To, ""
}

func (r *Runtime) stop(eventType string, payload map[string]any) (string, error) {
	if r.Definition.StopState == "" {
		return r.state, ErrNoStopState
	}
	r.state = r.Definition.StopState
	return r.state, r.append(eventType, "runtime", payload)
}

func (r *Runtime) event(eventType, actor string, payload map[string]any) eventlog.Event {
	return eventlog.Event{
		SessionID: r.SessionID, RunID: r.RunID, State: r.state,
		EventType: eventType, Actor: actor, Payload: payload,
	}
}

func (r *Runtime) append(eventType, actor string, payload map[string]any) error {
	return r.Log.Update(func(tx session.Tx) error {
		_, err := tx.Append(r.event(eventType, actor, payload))
		return err
	})
}

func copyPayload(p map[string]any) map[string]any {
	out := make(map[string]any, len(p))
	for k, v := range p {
		out[k] = v
	}
	return out
}
