// Package sim runs a loop without a model, as `hook-loop simulate` does. It is
// a fake harness, not a second interpreter: a scripted FakeAgent takes the
// simulation's agent_steps, a FakeEvaluator answers in the "evaluating" state
// with the scripted verdicts, and every loop event they produce is applied by
// engine.Engine.Apply — the transition core a real hook's rules go through —
// and every halt by engine.Engine.Halt. The runtime keeps no state: it reads
// the session's state from the log before each move.
//
// What makes a simulation a simulation is an input of that core, chosen here:
// only an evaluator PASS grants evidence_bound_to_criteria (a hook's recorded
// evidence does not), and a refused event halts the run in the loop's stop
// state (engine.Halt), as the Python original's simulation did (see
// docs/dsl-origin.md and Runtime.RunUntilStop).
//
// The HookBus (before_turn, before_state_transition) stays a driver concern: it
// is the Python original's in-process contract for embedders, whose verdicts
// (pause, replan) have no hook equivalent, and it decides whether the driver
// offers an event at all — as a harness decides whether to send one — never
// what the event does. The user's lifecycle hooks are the engine's: set
// Runtime.Engine to an engine with a Lifecycle and the simulation fires them
// exactly where a hook would.
package sim
