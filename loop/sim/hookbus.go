package sim

// Stages at which the simulation runtime fires its HookBus.
const (
	StageBeforeTurn            = "before_turn"
	StageBeforeStateTransition = "before_state_transition"
)

// HookVerdict is what an in-process simulation hook answers.
type HookVerdict string

// Hook verdicts. allow, steer and redact let the runtime proceed; block, pause
// and replan stop it.
const (
	HookAllow  HookVerdict = "allow"
	HookSteer  HookVerdict = "steer"
	HookRedact HookVerdict = "redact"
	HookBlock  HookVerdict = "block"
	HookPause  HookVerdict = "pause"
	HookReplan HookVerdict = "replan"
)

// HookContext is what a simulation hook sees.
type HookContext struct {
	State   string         // current state
	Event   string         // the loop event about to be applied ("" before a turn)
	Payload map[string]any // the event's payload
}

// HookDecision is a hook's answer, and the combined answer of a stage.
type HookDecision struct {
	Verdict  HookVerdict
	Messages []string
	Patch    map[string]any // redact: the replacement content
}

// Allowed reports whether the runtime may proceed.
func (d HookDecision) Allowed() bool {
	return d.Verdict == HookAllow || d.Verdict == HookSteer || d.Verdict == HookRedact
}

// NewHookDecision builds a decision; messages may be empty.
func NewHookDecision(v HookVerdict, messages ...string) HookDecision {
	return HookDecision{Verdict: v, Messages: append([]string{}, messages...)}
}

// HookFunc is an in-process hook.
type HookFunc func(HookContext) HookDecision

// HookBus runs in-process hooks registered per stage, in registration order. It
// is the Python original's contract for tests and embedders, not a security boundary.
type HookBus struct {
	hooks map[string][]HookFunc
}

// NewHookBus returns an empty bus.
func NewHookBus() *HookBus { return &HookBus{hooks: map[string][]HookFunc{}} }

// Register adds fn to stage.
func (b *HookBus) Register(stage string, fn HookFunc) {
	if b.hooks == nil {
		b.hooks = map[string][]HookFunc{}
	}
	b.hooks[stage] = append(b.hooks[stage], fn)
}

// Fire runs every hook of stage and combines their answers as the Python original did:
// the first non-allow verdict replaces allow, a later block/pause/replan replaces
// whatever came before (so a stopping verdict always wins over steer/redact),
// the last patch wins, and all messages are kept in order.
func (b *HookBus) Fire(stage string, ctx HookContext) HookDecision {
	out := HookDecision{Verdict: HookAllow, Messages: []string{}}
	if b == nil {
		return out
	}
	for _, fn := range b.hooks[stage] {
		d := fn(ctx)
		if d.Verdict == "" {
			d.Verdict = HookAllow
		}
		switch {
		case out.Verdict == HookAllow && d.Verdict != HookAllow:
			out.Verdict = d.Verdict
		case d.Verdict == HookBlock || d.Verdict == HookPause || d.Verdict == HookReplan:
			out.Verdict = d.Verdict
		}
		if d.Patch != nil {
			out.Patch = d.Patch
		}
		out.Messages = append(out.Messages, d.Messages...)
	}
	return out
}
