package sim

import (
	"context"
	"errors"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/loop/session"
)

// DefaultSimulationSession is the session id simulate uses unless told otherwise,
// as the Python original did.
const DefaultSimulationSession = "session-1"

// Driver is the name the simulation gives itself where a hook names its
// harness (loop_started, lifecycle hooks' facts).
const Driver = "simulate"

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
var ErrNoStopState = engine.ErrNoStopState

// Runtime is a fake harness: it plays a scripted agent and evaluator against
// the loop through engine.Engine.Apply and engine.Engine.Halt, the transition
// core hooks use too, so a simulation and a real hook cannot disagree. It keeps
// no state of its own: each turn it reads the session's state from the log.
type Runtime struct {
	Definition *dsl.Definition
	Log        *session.Log
	Agent      *FakeAgent
	Evaluator  *FakeEvaluator
	Hooks      *HookBus // nil: no hooks
	SessionID  string   // "": DefaultSimulationSession
	RunID      string   // "": a new UUID per Runtime
	// Engine applies the events; nil: an engine for Definition without
	// lifecycle hooks. Set it to simulate with the loop's event map, policies
	// and lifecycle hooks as a hook would run them.
	Engine *engine.Engine
}

// NewRuntime builds a runtime for session DefaultSimulationSession; set the
// exported fields to change the session or add hooks before running it.
func NewRuntime(def *dsl.Definition, log *session.Log, agent *FakeAgent, evaluator *FakeEvaluator) *Runtime {
	return &Runtime{Definition: def, Log: log, Agent: agent, Evaluator: evaluator}
}

// State is the session's current state as the engine reads it from the log.
func (r *Runtime) State() string {
	if r.Definition == nil || r.Log == nil {
		return ""
	}
	var state string
	_ = r.Log.View(func(tx session.Tx) error {
		state = r.engine().State(tx, r.session())
		return nil
	})
	return state
}

// RunUntilStop runs turns until the loop reaches a terminal state or the budget
// runs out, and returns the final state. Like the Python original:
//   - the state is recovered from the log's events of this session only; the
//     engine starts a session without events (loop_started);
//   - each turn fires before_turn, then either asks the evaluator (in the
//     "evaluating" state: the verdict is recorded, then PASS → evaluator_passed
//     with the guard evidence_bound_to_criteria granted, otherwise
//     evaluator_failed) or takes the agent's next step for the state
//     (evidence_recorded first records evidence_registered); reaching
//     "evaluating" by a step evaluates at once;
//   - every loop event first fires before_state_transition; a
//     block/pause/replan halts the run with transition_blocked, an event the
//     machine refuses (no such transition, a missing guard) halts it with
//     transition_rejected (the engine's Halt policy);
//   - max_no_progress_turns turns in a row without a transition, or max_turns
//     turns, halt it with budget_exhausted.
//
// Halting moves the loop to the stop state and records the outcome "stopped";
// reaching a terminal state records "completed". An error means the log could
// not be written or the evaluator ran out of verdicts.
func (r *Runtime) RunUntilStop(b dsl.Budget) (string, error) {
	if r.Definition == nil || r.Log == nil {
		return "", errors.New("simulation needs a loop definition and an event log")
	}
	if r.SessionID == "" {
		r.SessionID = DefaultSimulationSession
	}
	if r.RunID == "" {
		r.RunID = eventlog.NewID()
	}
	maxNoProgress := b.MaxNoProgressTurns
	if maxNoProgress <= 0 {
		maxNoProgress = 2 // the Python original's RuntimeBudget default
	}
	noProgress := 0
	for turn := 0; turn < b.MaxTurns; turn++ {
		state := r.State()
		if r.terminal(state) {
			return state, nil
		}
		before := r.Hooks.Fire(StageBeforeTurn, HookContext{State: state, Payload: map[string]any{}})
		if !before.Allowed() {
			return r.halt(TypeTransitionBlocked, map[string]any{"messages": before.Messages})
		}
		progressed, err := r.turn(state)
		if err != nil {
			return r.State(), err
		}
		if state := r.State(); r.terminal(state) {
			return state, nil
		}
		if progressed {
			noProgress = 0
			continue
		}
		noProgress++
		if noProgress >= maxNoProgress {
			return r.halt(TypeBudgetExhausted, map[string]any{"reason": "no productive event"})
		}
	}
	if state := r.State(); r.terminal(state) {
		return state, nil
	}
	return r.halt(TypeBudgetExhausted, map[string]any{"reason": "max_turns"})
}

// turn plays one turn in state and reports whether a transition applied.
func (r *Runtime) turn(state string) (bool, error) {
	if state == EvaluatingState {
		return r.evaluate()
	}
	var steps []dsl.AgentStep
	if r.Agent != nil {
		steps = r.Agent.NextSteps(state)
	}
	progressed := false
	for _, step := range steps {
		ok, err := r.applyStep(step)
		if err != nil {
			return progressed, err
		}
		progressed = ok || progressed
		if r.terminal(r.State()) {
			return progressed, nil
		}
		if r.State() == EvaluatingState {
			ok, err := r.evaluate()
			if err != nil {
				return progressed, err
			}
			progressed = ok || progressed
		}
		if r.terminal(r.State()) {
			return progressed, nil
		}
	}
	return progressed, nil
}

func (r *Runtime) session() string {
	if r.SessionID == "" {
		return DefaultSimulationSession
	}
	return r.SessionID
}

func (r *Runtime) engine() *engine.Engine {
	if r.Engine != nil {
		return r.Engine
	}
	return &engine.Engine{Spec: &dsl.Spec{Definition: r.Definition}}
}

func (r *Runtime) terminal(state string) bool { return r.Definition.IsTerminal(state) }

func (r *Runtime) evaluate() (bool, error) {
	if r.Evaluator == nil {
		return false, ErrNoVerdicts
	}
	v, err := r.Evaluator.Evaluate(map[string]any{"state": EvaluatingState})
	if err != nil {
		return false, err
	}
	verdict := &engine.Record{Type: TypeVerdictRecorded, Actor: "evaluator", Payload: map[string]any{"status": v.Status, "details": v.Details}}
	event, guards := "evaluator_failed", []string(nil)
	if v.Status == dsl.VerdictPass {
		event, guards = "evaluator_passed", []string{dsl.GuardEvidenceBound}
	}
	return r.offer(verdict, event, map[string]any{"verdict": v.Status}, guards)
}

func (r *Runtime) applyStep(step dsl.AgentStep) (bool, error) {
	var evidence *engine.Record
	if step.Event == "evidence_recorded" {
		evidence = &engine.Record{Type: eventlog.TypeEvidenceRegistered, Actor: "agent", Payload: step.Payload}
	}
	return r.offer(evidence, step.Event, step.Payload, nil)
}

// offer records what precedes the event, lets the before_state_transition
// hooks veto it, and applies it through the engine with the Python original's
// semantics: only the guards given are granted, a refusal halts.
func (r *Runtime) offer(record *engine.Record, event string, payload map[string]any, guards []string) (bool, error) {
	if record != nil {
		if _, err := r.apply(engine.LoopEvent{Record: record}); err != nil {
			return false, err
		}
	}
	d := r.Hooks.Fire(StageBeforeStateTransition, HookContext{State: r.State(), Event: event, Payload: copyPayload(payload)})
	if !d.Allowed() {
		_, err := r.halt(TypeTransitionBlocked, map[string]any{"messages": d.Messages})
		return false, err
	}
	res, err := r.apply(engine.LoopEvent{Event: event, Guards: guards, Payload: payload, Actor: "runtime", OnReject: engine.Halt})
	return res.Applied, err
}

func (r *Runtime) apply(in engine.LoopEvent) (engine.Result, error) {
	in.RunID, in.Driver = r.RunID, Driver
	var res engine.Result
	err := r.Log.Update(func(tx session.Tx) error {
		var err error
		res, err = r.engine().Apply(context.Background(), tx, r.session(), in)
		return err
	})
	return res, err
}

// halt ends the run in the stop state through the engine.
func (r *Runtime) halt(eventType string, payload map[string]any) (string, error) {
	var res engine.Result
	err := r.Log.Update(func(tx session.Tx) error {
		var err error
		res, err = r.engine().Halt(context.Background(), tx, r.session(), engine.LoopEvent{
			Record: &engine.Record{Type: eventType, Actor: "runtime", Payload: payload}, RunID: r.RunID, Driver: Driver,
		})
		return err
	})
	if err != nil {
		return r.State(), err
	}
	return res.To, nil
}

func copyPayload(p map[string]any) map[string]any {
	out := make(map[string]any, len(p))
	for k, v := range p {
		out[k] = v
	}
	return out
}
