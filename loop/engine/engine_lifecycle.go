package engine

import (
	"context"
	"fmt"

	"github.com/hook-loop/hook-loop/loop"

	"github.com/hook-loop/hook-loop/sdk/hooks"
)

// The fire* methods build a point's context, run the user's hooks on it, log what
// the runner reports, and hand back the decisions. With no Lifecycle they return
// the defaults, so behaviour without hooks is exactly what it was.

func (h *handling) facts() hooks.Facts {
	return hooks.Facts{
		LoopID:    h.e.Spec.Definition.ID,
		SessionID: h.sid,
		Harness:   h.ev.Harness,
		Cwd:       h.ev.Cwd,
		State:     h.state,
		Actor:     h.actorName(),
	}
}

// model is the model the harness's payload names (its adapter read it).
func (h *handling) model() string { return h.ev.Model }

// actorName is who brought the handled moment about, as the contexts say it.
func (h *handling) actorName() string {
	if h.actor == "" {
		return "agent"
	}
	return h.actor
}

func (h *handling) fire(point string, c any) error {
	if h.e.Lifecycle == nil {
		return nil
	}
	p, _ := hooks.Lookup(point)
	for _, r := range h.e.Lifecycle.Fire(h.ctx, point, c) {
		if err := h.append(r.Type, "lifecycle", r.Payload); err != nil {
			return err
		}
		// A point that decides proceed refuses what it guards itself; at the
		// others a required hook's failure would otherwise be a note in the log,
		// and the gate would run without a check it was told it must have.
		if req, _ := r.Payload["required"].(bool); req && r.Type == RecordFailed && !p.HasDecision("proceed") && !h.held {
			hook, _ := r.Payload["hook"].(string)
			if err := h.hold(point, hook, fmt.Sprintf("required lifecycle hook %q failed at %s: %v", hook, point, r.Payload["why"])); err != nil {
				return err
			}
		}
	}
	return nil
}

// RecordFailed is the type of the record a lifecycle runner returns for a hook
// that failed; its payload carries required=true when the hook was required.
const RecordFailed = "hooks.failed"

func (h *handling) fireLoopStart() (bool, string, error) {
	c := hooks.NewLoopStart(h.facts())
	c.Command = h.command
	if c.Command == "" {
		c.Command = h.ev.Name
	}
	err := h.fire(hooks.PointLoopStart, c)
	return c.Proceed, c.Reason, err
}

func (h *handling) fireSessionStart(text string) (proceed bool, reason, context string, err error) {
	c := hooks.NewSessionStart(h.facts(), h.ev.Source, text)
	c.Model = h.model()
	err = h.fire(hooks.PointSessionStart, c)
	return c.Proceed, refusal(c.Reason, hooks.PointSessionStart), c.Context, err
}

func (h *handling) fireInputReceived() (proceed bool, reason, context string, err error) {
	c := hooks.NewInputReceived(h.facts(), h.ev.Prompt)
	if h.ev.NativeName != "" {
		c.Event = h.ev.NativeName
	}
	err = h.fire(hooks.PointInputReceived, c)
	return c.Proceed, refusal(c.Reason, hooks.PointInputReceived), c.Context, err
}

func (h *handling) fireToolRequested() (bool, string, error) {
	c := hooks.NewToolRequested(h.facts(), h.ev.ToolName, h.ev.ToolInput, h.ev.Command, h.targets)
	err := h.fire(hooks.PointToolRequested, c)
	return c.Proceed, refusal(c.Reason, hooks.PointToolRequested), err
}

// fireSessionSpawned runs session_spawned once the session's first event is
// recorded; what the hooks announce is given to the agent with this answer
// where the harness takes text for the model, else shown to the person.
func (h *handling) fireSessionSpawned() error {
	c := hooks.NewSessionSpawned(h.facts(), h.ev.Name, h.ev.Source, h.model())
	if h.ev.SessionID == DefaultSession {
		c.HarnessSessionID = ""
	}
	if err := h.fire(hooks.PointSessionSpawned, c); err != nil {
		return err
	}
	if c.Announce == "" {
		return nil
	}
	switch h.ev.Name {
	case loop.EventSessionStart, loop.EventUserPromptSubmit, loop.EventPreToolUse, loop.EventPostToolUse:
		h.steer = append(h.steer, c.Announce)
	default:
		h.system = append(h.system, c.Announce)
	}
	return nil
}

func (h *handling) firePhaseChanged(from, to, event string) error {
	c := hooks.NewPhaseChanged(h.facts(), from, to, event, h.e.Spec.Definition.IsTerminal(to))
	if err := h.fire(hooks.PointPhaseChanged, c); err != nil {
		return err
	}
	if c.Notify {
		msg := c.Message
		if msg == "" {
			msg = fmt.Sprintf("hook-loop: %s → %s (%s)", from, to, event)
		}
		h.system = append(h.system, msg)
	}
	return nil
}

func (h *handling) fireWaiting() error {
	def := h.e.Spec.Definition
	c := hooks.NewWaitingForInput(h.facts(), "", "")
	c.Question = def.Instructions[h.state]
	if c.Question == "" {
		c.Question = fmt.Sprintf("The loop %q waits for you in state %q.", def.ID, h.state)
	}
	if err := h.fire(hooks.PointWaitingForInput, c); err != nil {
		return err
	}
	if err := h.append("waiting_for_input", "hook-loop", map[string]any{
		"question": c.Question, "summary": c.Summary,
	}); err != nil {
		return err
	}
	msg := "hook-loop: " + c.Question
	if c.Summary != "" {
		msg = "hook-loop: " + c.Summary + "\n" + c.Question
	}
	h.system = append(h.system, msg)
	return nil
}

func (h *handling) fireLoopComplete(outcome string) error {
	c := hooks.NewLoopComplete(h.facts(), h.state, outcome)
	if err := h.fire(hooks.PointLoopComplete, c); err != nil {
		return err
	}
	if c.Announce && outcome != "forced" {
		h.system = append(h.system, fmt.Sprintf("hook-loop: loop %q finished in state %q (%s).", h.e.Spec.Definition.ID, h.state, outcome))
	}
	return nil
}

func refusal(reason, point string) string {
	if reason != "" {
		return reason
	}
	return "refused by a lifecycle hook at " + point
}

// PersonInput runs input_received for a person's control (command: approve,
// advance, pause, ...; event: advance's loop event; reason: what the person
// gave) before it acts, with the same failure rules as a prompt: proceed false
// (a refusal, or a required hook that failed) means the control is not
// carried out, and reason says why. What the hooks did is appended to the log
// inside tx, so a refusal is recorded when tx commits. Run it inside the log's
// exclusive transaction, before the control's own Apply, Cancel or Reset.
func (e *Engine) PersonInput(ctx context.Context, tx Tx, sessionID, command, event, reason string) (bool, string, error) {
	if e.Lifecycle == nil {
		return true, "", nil
	}
	h := e.start(ctx, tx, sessionID, LoopEvent{Actor: "person", Driver: "operator", Command: command})
	c := hooks.NewCommandReceived(h.facts(), command, event, reason)
	if err := h.fire(hooks.PointInputReceived, c); err != nil {
		return false, "", err
	}
	return c.Proceed, refusal(c.Reason, hooks.PointInputReceived), nil
}
