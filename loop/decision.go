package loop

// Action is what hook-loop answers for one event.
type Action string

const (
	Allow Action = "allow" // no opinion: the harness proceeds as it would anyway
	Block Action = "block" // refuse: a tool call, a prompt, or a stop (Reason says why)
	Steer Action = "steer" // proceed, and give the model Context
)

// Decision is harness-neutral; each adapter encodes it into the exact output its
// harness honours.
type Decision struct {
	Action Action
	// Reason is the text the model reads when Action is Block.
	Reason string
	// Context is extra text for the model (Steer, or alongside Allow at SessionStart).
	Context string
	// SystemMessage is for the person watching, never the model.
	SystemMessage string
	// EndSession asks the harness to end the session, with Reason, where it
	// can (a lifecycle hook refused session_start).
	EndSession bool
	// Outcome is set when this event ended the loop for the session:
	// "completed", "stopped" or "capped".
	Outcome string
	// State is the loop state after the event (for replay/demo output).
	State string
	// MatchedRules are indexes into codex.event_map of the rules that matched.
	MatchedRules []int
	// StopBlocks is the number of consecutive refused stops, after this event.
	StopBlocks int
	// MaxStopBlocks is the loop's cap (so plugins can bound their own retries).
	MaxStopBlocks int
}

// Allowed reports whether the harness may proceed.
func (d Decision) Allowed() bool { return d.Action != Block }
