// Package dsl is the loop language, hook-loop.json: it loads a file into a Spec
// (the loop's states, events and transitions, its simulation and its event
// map), reports every problem at once as Diagnostics that name the file, the
// JSON path and what was expected, warns about loops that cannot finish, draws
// the machine as Mermaid or DOT, and matches a hook event against the event
// map's rules. Files written for the Python original keep their meaning; see
// docs/dsl-origin.md.
package dsl
