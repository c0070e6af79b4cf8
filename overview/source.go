package overview

import (
	"strings"

	loopdsl "github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/engine"
	"github.com/hook-loop/hook-loop/loop/session"
)

// This file is the only place that reads the engine's types: per-session
// summaries from the log's index and the loop's own words for what advances a
// state. When the engine's session view replaces session.View, these are the
// lines to change.

// summary is what the index knows about one session.
type summary struct {
	State          string
	Events         int
	Evidence       int
	StopBlocks     int
	Outcome        string
	OutcomeForced  bool
	Disarmed       string
	LastTimestamp  string
	Paused         bool
	Cancelled      string
	WouldBlocks    int
	LastWouldBlock string
}

// readSummaries returns every session id in first-seen order and its summary,
// from the index (no pass over the log).
func readSummaries(src logSource, projectScope bool) ([]string, map[string]summary, error) {
	var ids []string
	sums := map[string]summary{}
	err := src.view(func(tx session.Reader, all []string) error {
		ids = all
		project := tx.Project()
		for _, id := range ids {
			s := tx.Session(id)
			if projectScope {
				// A project-scoped loop has one state for the whole log.
				s.State, s.Evidence = project.State, project.Evidence
			}
			sums[id] = summary{State: s.State, Events: s.Events, Evidence: s.Evidence, StopBlocks: s.StopBlocks,
				Outcome: s.Outcome, OutcomeForced: s.OutcomeForced, Disarmed: s.Disarmed, LastTimestamp: s.LastTimestamp,
				Paused: s.Paused, Cancelled: s.Cancelled, WouldBlocks: s.WouldBlocks, LastWouldBlock: s.LastWouldBlock}
		}
		return nil
	})
	return ids, sums, err
}

// loopText is what the loop says about a state.
type loopText struct {
	eng *engine.Engine
}

func (lt loopText) def() *loopdsl.Definition {
	if lt.eng == nil {
		return nil
	}
	return lt.eng.Spec.Definition
}

// next lists the transitions that leave state, each with its guards and what
// emits its event.
func (lt loopText) next(state string) []string {
	def := lt.def()
	if def == nil {
		return nil
	}
	var out []string
	for _, t := range def.Outgoing(state) {
		line := t.Event + " → " + t.To
		if len(t.Guards) > 0 {
			line += " [" + strings.Join(t.Guards, ", ") + "]"
		}
		ways := lt.eng.Spec.DescribeEmitters(t.Event)
		if c := def.PersonCommand(state, t.Event); c != "" {
			ways = append(ways, "a person's `"+c+"`")
		}
		if len(ways) > 0 {
			line += " on " + strings.Join(ways, " or ")
		}
		out = append(out, line)
	}
	return out
}

// stopMessage is what the agent would read if it tried to stop now.
func (lt loopText) stopMessage(state string, evidence int) string {
	def := lt.def()
	if def == nil || state == "" || def.IsTerminal(state) || def.WaitsForHumanIn(state) {
		return ""
	}
	return lt.eng.StopMessage(state, evidence)
}

// question is what a person is asked in a waiting state when the log does not
// say (the engine's own default).
func (lt loopText) question(state string) string {
	def := lt.def()
	if q := def.Instructions[state]; q != "" {
		return q
	}
	return "The loop \"" + def.ID + "\" waits for you in state \"" + state + "\"."
}
