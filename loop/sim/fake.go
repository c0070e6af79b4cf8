package sim

import (
	"errors"
	"strings"

	"github.com/hook-loop/hook-loop/loop/dsl"
)

// ParseVerdict reads an evaluator's answer: the first line is PASS or NEEDS_WORK,
// the rest (trimmed) are the details.
func ParseVerdict(text string) (dsl.Verdict, error) {
	lines := splitLines(text)
	first := ""
	if len(lines) > 0 {
		first = strings.TrimSpace(lines[0])
	}
	if first != dsl.VerdictPass && first != dsl.VerdictNeedsWork {
		return dsl.Verdict{}, errors.New("verdict must start with PASS or NEEDS_WORK")
	}
	return dsl.Verdict{Status: first, Details: strings.TrimSpace(strings.Join(lines[1:], "\n"))}, nil
}

// splitLines splits on \n, \r\n and \r, without a trailing empty line, as
// Python's str.splitlines did in the Python original.
func splitLines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// FakeAgent plays scripted steps: each turn in a state it takes that state's
// next step, until the state's script runs out.
type FakeAgent struct {
	steps map[string][]dsl.AgentStep
}

// NewFakeAgent copies the scripts, so running the agent never changes the Spec.
func NewFakeAgent(steps map[string][]dsl.AgentStep) *FakeAgent {
	a := &FakeAgent{steps: map[string][]dsl.AgentStep{}}
	for state, list := range steps {
		a.steps[state] = append([]dsl.AgentStep(nil), list...)
	}
	return a
}

// NextSteps returns the steps the agent takes this turn in state (zero or one).
func (a *FakeAgent) NextSteps(state string) []dsl.AgentStep {
	list := a.steps[state]
	if len(list) == 0 {
		return nil
	}
	a.steps[state] = list[1:]
	return list[:1:1]
}

// FakeEvaluator returns scripted verdicts in order.
type FakeEvaluator struct {
	verdicts []dsl.Verdict
}

// ErrNoVerdicts is returned when the evaluator is asked once more than it has
// verdicts for.
var ErrNoVerdicts = errors.New("FakeEvaluator has no remaining verdicts")

// NewFakeEvaluator copies the verdicts.
func NewFakeEvaluator(verdicts []dsl.Verdict) *FakeEvaluator {
	return &FakeEvaluator{verdicts: append([]dsl.Verdict(nil), verdicts...)}
}

// Evaluate returns the next verdict. context is what the runtime knows (the
// state); a scripted evaluator ignores it.
func (e *FakeEvaluator) Evaluate(context map[string]any) (dsl.Verdict, error) {
	if len(e.verdicts) == 0 {
		return dsl.Verdict{}, ErrNoVerdicts
	}
	v := e.verdicts[0]
	e.verdicts = e.verdicts[1:]
	return v, nil
}
