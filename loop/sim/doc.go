// Package sim runs a loop without a model, as `hook-loop simulate` does: a
// scripted fake agent takes the simulation's agent_steps, a fake evaluator
// answers in the "evaluating" state with the scripted verdicts, and every step
// is recorded in the event log, with the Python original's simulation semantics
// (see docs/dsl-origin.md and Runtime.RunUntilStop).
package sim
