// Package loop is the canonical model every harness adapter speaks: the decoded
// hook event (HookEvent, ToolResult), the canonical event names, and the
// harness-neutral answer (Decision, Action). It imports no other package of this
// module, so adapters and the engine can both depend on it without cycles.
//
// The rest of the loop lives in subpackages: dsl (the hook-loop.json language),
// guard (the built-in tool policy), session (the fold of the event log into what
// a decision needs), engine (one hook event in, one Decision out) and sim (the
// scripted simulation, which drives the engine).
package loop
