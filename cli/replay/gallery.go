package replay

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/gallery"
	"github.com/hook-loop/hook-loop/loop"
	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/session"
)

// TraceProject is the project directory the trace recorder writes in place of
// the scratch project (e2e/traces_test.go).
const TraceProject = "/work/trace-project"

// Verdict is one recorded session of a gallery loop replayed through its
// harness's adapter, against what the loop promises: every recorded run ends
// in its success state with the outcome completed, and an early-stop run has
// its early stop refused first.
type Verdict struct {
	Trace    gallery.Trace
	Spec     *dsl.Spec
	Steps    []Step
	Sessions map[string]session.View
}

// Success is the loop's terminal state that is not its stop state ("done" in
// every gallery loop): the end its documentation promises.
func (v Verdict) Success() string {
	for _, s := range v.Spec.Definition.TerminalStates {
		if s != v.Spec.Definition.StopState {
			return s
		}
	}
	return ""
}

// Completed reports whether a session reached the success state with the
// outcome completed.
func (v Verdict) Completed() bool {
	for _, s := range v.Sessions {
		if s.State == v.Success() && s.Outcome == "completed" {
			return true
		}
	}
	return false
}

// EarlyStopRefused reports whether a Stop was refused before the loop became
// terminal.
func (v Verdict) EarlyStopRefused() bool {
	for _, s := range v.Steps {
		if slices.Contains(v.Spec.Definition.TerminalStates, s.State) {
			return false
		}
		if s.Event == loop.EventStop && s.Action == string(loop.Block) {
			return true
		}
	}
	return false
}

// OK reports whether the run did what the loop promises.
func (v Verdict) OK() bool {
	return v.Completed() && (v.Trace.Kind != "early-stop" || v.EarlyStopRefused())
}

// End is where the run ended: the success state when a session reached it,
// else the last step's state, with its outcome.
func (v Verdict) End() string {
	for _, s := range v.Sessions {
		if s.State == v.Success() && s.Outcome != "" {
			return s.State + " (" + s.Outcome + ")"
		}
	}
	if len(v.Steps) == 0 {
		return "(no events)"
	}
	last := v.Steps[len(v.Steps)-1]
	end := last.State
	if o := v.Sessions[last.Session].Outcome; o != "" {
		end += " (" + o + ")"
	}
	return end
}

// Promised is what the loop promises for this run, in End's words.
func (v Verdict) Promised() string {
	p := v.Success() + " (completed)"
	if v.Trace.Kind == "early-stop" {
		p += ", an early stop refused"
	}
	return p
}

// PromisedOr is Promised for a verdict whose replay may have failed early
// (its Spec unset): what spec promises for tr.
func (v Verdict) PromisedOr(spec *dsl.Spec, tr gallery.Trace) string {
	v.Spec, v.Trace = spec, tr
	return v.Promised()
}

// Transcript is the replay, one line per event.
func (v Verdict) Transcript() string {
	var b strings.Builder
	for _, s := range v.Steps {
		Print(&b, s)
	}
	return b.String()
}

// CheckTrace replays tr through spec (its gallery loop, or an edited one) with
// adapters, in a project at root and a new log in logDir.
func CheckTrace(ctx context.Context, spec *dsl.Spec, adapters map[string]harness.Adapter, tr gallery.Trace, root, logDir string) (Verdict, error) {
	lines, err := ParseTrace(tr.Name, bytes.NewReader(tr.Data))
	if err != nil {
		return Verdict{}, err
	}
	v := Verdict{Trace: tr, Spec: spec, Sessions: map[string]session.View{}}
	logPath := filepath.Join(logDir, "events.jsonl")
	_, err = Run(ctx, Options{Spec: spec, Adapters: adapters, Harness: tr.Harness, LogPath: logPath, Root: root, Rebase: TraceProject},
		lines, func(s Step) { v.Steps = append(v.Steps, s) })
	if err != nil {
		return v, err
	}
	err = session.Open(logPath).View(func(tx session.Tx) error {
		for _, s := range v.Steps {
			v.Sessions[s.Session] = tx.Session(s.Session)
		}
		return nil
	})
	return v, err
}
