// Package engine decides one hook event against a loop: it reads the session's
// view from the event log, applies the loop's event map, runs the tool policy
// and the stop gate, fires the user's lifecycle hooks, appends what happened and
// returns one Decision. It never knows which harness sent the event: adapters
// decode into loop.HookEvent and encode the loop.Decision.
//
// Every transition, whoever asks for it, goes through one core (apply.go): a
// rule's emit in Handle, a simulated step (loop/sim drives Apply and Halt as a
// fake harness), an operator's advance. The callers choose its inputs — the
// guards they grant, whether a refusal halts the loop — never its rules.
package engine

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/hook-loop/hook-loop/eventlog"
	"github.com/hook-loop/hook-loop/loop"
	"github.com/hook-loop/hook-loop/loop/dsl"
	"github.com/hook-loop/hook-loop/loop/guard"
	"github.com/hook-loop/hook-loop/loop/session"
)

// DefaultSession is the session key of an event whose harness gave no session id.
const DefaultSession = "default"

// Engine decides one hook event against a loop. It is harness-neutral: adapters
// decode into loop.HookEvent and encode the loop.Decision.
type Engine struct {
	Spec *dsl.Spec
	// Root is the project root: relative paths in policies are judged against it.
	Root string
	// ConfigPath and LogPath are the DSL file and event log in use; the agent may
	// not write them.
	ConfigPath string
	LogPath    string
	// OwnedPaths are more paths the agent may not write (the hook configurations
	// that call hook-loop): absolute or relative to Root, a trailing "/" meaning
	// the folder and everything under it. The engine does not know harnesses; its
	// caller says which files they own.
	OwnedPaths []string
	// SecretPaths are paths the agent may not even read (the log's keys, the
	// pinned loops): absolute, a trailing "/" meaning the folder.
	SecretPaths []string
	// Home and Vars are the environment the agent's commands run in ($HOME,
	// $CODEX_HOME, ...): the guard reads a command's write targets with them.
	Home string
	Vars map[string]string
	// Self returns the path of the running hook-loop binary: a tool call
	// running it is running hook-loop. The guard asks only when a command is
	// named by a path; nil or "" means unknown.
	Self func() string
	// Lifecycle runs the user's lifecycle hooks; nil means none.
	Lifecycle Lifecycle
	// HooksLoadFailed is the hooks.load_failed record when the lifecycle
	// declaration did not load: recorded and told once per session, and under
	// fail_closed the session's tool calls and stop are refused.
	HooksLoadFailed *LifecycleRecord
	// Mode overrides the loop's mode (dsl.ModeEnforce, ModeWarn, ModeAudit)
	// when set: an install's --mode or HOOK_LOOP_MODE.
	Mode string
}

// EffectiveMode is the mode the engine decides in: Mode, else the loop's,
// else enforce.
func (e *Engine) EffectiveMode() string {
	switch {
	case e.Mode != "":
		return e.Mode
	case e.Spec.Definition.Mode != "":
		return e.Spec.Definition.Mode
	}
	return dsl.ModeEnforce
}

// Tx is what the engine needs of the event log during one decision: the views of
// a session and of the whole project (events appended in the transaction
// included), and a way to append. session.Tx implements it over the JSONL log;
// another store of the log implements the same four methods.
type Tx interface {
	session.Reader
	SessionIDs() []string
	Append(e eventlog.Event) (eventlog.Event, error)
}

var _ Tx = session.Tx{}

// handling is the state of one Handle call.
type handling struct {
	e     *Engine
	ctx   context.Context
	tx    Tx
	ev    *loop.HookEvent
	sid   string
	runID string
	state string
	// messages collected for the person (phase changes, completion, waiting).
	system []string
	// context for the model (steer).
	steer   []string
	matched []int
	// outcome is set when this event ended the loop (completed, stopped, forced).
	outcome string
	// call is the tool request as the guard read it (parsed command, write
	// analysis).
	call guard.Call
	// targets are the paths the call writes, as the engine judges them.
	targets []string
	// held is set once this handling recorded a lifecycle hold, so one failure
	// is recorded once.
	held bool
	// actor is who brought the event about, for the lifecycle contexts: ""
	// (the agent, through its harness), "person" (a control), a driver.
	actor string
	// command is the person's control being carried out ("" for a hook event).
	command string
}

// Handle decides ev. It must run inside the log's exclusive transaction so that
// concurrent hook processes see each other's transitions exactly once.
func (e *Engine) Handle(ctx context.Context, tx Tx, ev loop.HookEvent) (loop.Decision, error) {
	h := &handling{e: e, ctx: ctx, tx: tx, ev: &ev, sid: SessionKey(ev.SessionID), runID: ev.TurnID}
	if h.runID == "" {
		h.runID = eventlog.NewID()
	}
	h.refresh()
	if err := h.noteTampering(); err != nil {
		return loop.Decision{}, err
	}
	if err := h.noteHooksLoadFailed(); err != nil {
		return loop.Decision{}, err
	}
	if ev.ToolName != "" {
		// Every path the call writes, whichever harness sent it: the adapter's
		// (file_path, patch headers) and the shell's (redirections, cp, sed -i,
		// ...). path_match rules and the tool policy judge the same list.
		h.call = e.policy().Read(h.ev)
		h.targets = h.call.Targets
	}
	d, err := h.decide()
	if err != nil {
		return loop.Decision{}, err
	}
	d = h.finish(d)
	if err := h.recordHookFired(d); err != nil {
		return loop.Decision{}, err
	}
	return d, nil
}

// SessionKey is the log's session id for a harness's session id.
func SessionKey(sessionID string) string {
	if sessionID == "" {
		return DefaultSession
	}
	return sessionID
}

// finish completes the decision of one event with what the handling collected:
// the state, the matched rules, the outcome, the messages and the steer text.
func (h *handling) finish(d loop.Decision) loop.Decision {
	e := h.e
	d.State = h.state
	d.MatchedRules = h.matched
	if d.Outcome == "" {
		d.Outcome = h.outcome
	}
	d.MaxStopBlocks = e.Spec.Definition.EffectiveMaxStopBlocks()
	if d.SystemMessage == "" && len(h.system) > 0 {
		d.SystemMessage = strings.Join(h.system, "\n")
	}
	if len(h.steer) > 0 && d.Action != loop.Block {
		extra := strings.Join(h.steer, "\n")
		if d.Context != "" {
			d.Context += "\n" + extra
		} else {
			d.Context = extra
		}
		d.Action = loop.Steer
	}
	return d
}

// refresh reads the state that drives decisions: the session's, or the whole
// log's when the loop is project-scoped.
func (h *handling) refresh() {
	def := h.e.Spec.Definition
	h.state = h.view().State
	if h.state == "" || !def.HasState(h.state) {
		h.state = def.InitialState
	}
}

// view is the session's view as decisions read it, events appended so far by
// this handling included.
func (h *handling) view() session.View {
	return session.Scoped(h.tx, h.sid, h.e.Spec.Definition.Scope == dsl.ScopeProject)
}

func (h *handling) append(eventType, actor string, payload map[string]any) error {
	if payload == nil {
		payload = map[string]any{}
	}
	_, err := h.tx.Append(eventlog.Event{
		SessionID: h.sid,
		RunID:     h.runID,
		State:     h.state,
		EventType: eventType,
		Actor:     actor,
		Payload:   payload,
	})
	if err != nil {
		return fmt.Errorf("append %s: %w", eventType, err)
	}
	return nil
}

func (h *handling) decide() (loop.Decision, error) {
	if !h.tx.Session(h.sid).Started {
		if err := h.startLoop(); err != nil {
			return loop.Decision{}, err
		}
	}
	if s := h.tx.Session(h.sid); s.Disarmed != "" {
		return refusedSession(s.Disarmed, s.SessionRefused, h.ev.Name), nil
	}
	if s := h.tx.Session(h.sid); s.Cancelled != "" {
		// A person cancelled the loop: nothing is gated any more.
		return loop.Decision{Action: loop.Allow}, nil
	}
	switch h.ev.Name {
	case loop.EventSessionStart:
		if err := h.applyRules(); err != nil {
			return loop.Decision{}, err
		}
		text := h.contract()
		proceed, reason, text, err := h.fireSessionStart(text)
		if err != nil {
			return loop.Decision{}, err
		}
		if !proceed {
			// Some harnesses cannot end a session at its start (Claude Code
			// -p runs the first prompt anyway): the refusal is kept, and the
			// session's later prompts and tool calls are refused too.
			if err := h.append(eventlog.TypeLoopDisarmed, "hook-loop", map[string]any{"reason": reason, "session_refused": true}); err != nil {
				return loop.Decision{}, err
			}
			return loop.Decision{Action: loop.Block, Reason: reason, EndSession: true}, nil
		}
		return loop.Decision{Action: loop.Steer, Context: text}, nil

	case loop.EventUserPromptSubmit:
		if err := h.noteForcedStop(); err != nil {
			return loop.Decision{}, err
		}
		if h.echoesRefusal() {
			// hook-loop's own words coming back, not the person's: neither the
			// input_received hooks nor the prompt rules are asked about them.
			return loop.Decision{Action: loop.Allow}, nil
		}
		proceed, reason, extra, err := h.fireInputReceived()
		if err != nil {
			return loop.Decision{}, err
		}
		if !proceed {
			return loop.Decision{Action: loop.Block, Reason: reason}, nil
		}
		if err := h.applyRules(); err != nil {
			return loop.Decision{}, err
		}
		if extra != "" {
			return loop.Decision{Action: loop.Steer, Context: extra}, nil
		}
		return loop.Decision{Action: loop.Allow}, nil

	case loop.EventPreToolUse, loop.EventPermissionRequest:
		// Rules record and transition before a block, as in the Python original, so a
		// PreToolUse rule still sees an attempted action.
		if err := h.applyRules(); err != nil {
			return loop.Decision{}, err
		}
		if s := h.tx.Session(h.sid); s.Paused {
			// A person's pause holds whatever the mode: it is theirs, not the loop's.
			return loop.Decision{Action: loop.Block, Reason: pausedReason(s.PauseReason)}, nil
		}
		chk := h.e.policy().Check(h.ev, h.call, h.state)
		if hold := h.toolHold(); hold != "" && !chk.Blocked {
			chk.Blocked, chk.Rule, chk.Reason = true, "held", hold
		}
		if chk.Blocked {
			// The agent's words clipped: a command (or a path in the reason)
			// past the log's line limit failed the append, and the failure
			// let the refused call run.
			payload := map[string]any{
				"tool_name": h.ev.ToolName, "rule": chk.Rule, "reason": clip(chk.Reason), "command": clip(h.ev.Command),
			}
			if h.e.EffectiveMode() != dsl.ModeEnforce {
				if err := h.wouldBlock("tool", payload); err != nil {
					return loop.Decision{}, err
				}
				return loop.Decision{Action: loop.Allow}, nil
			}
			if err := h.append("tool_blocked", "hook-loop", payload); err != nil {
				return loop.Decision{}, err
			}
			return loop.Decision{Action: loop.Block, Reason: chk.Reason}, nil
		}
		proceed, reason, err := h.fireToolRequested()
		if err != nil {
			return loop.Decision{}, err
		}
		if !proceed {
			return loop.Decision{Action: loop.Block, Reason: reason}, nil
		}
		if chk.Note != "" {
			h.steer = append(h.steer, chk.Note)
		}
		return loop.Decision{Action: loop.Allow}, nil

	case loop.EventStop:
		if err := h.applyRules(); err != nil {
			return loop.Decision{}, err
		}
		return h.stopGate()

	case loop.EventSessionEnd:
		if err := h.noteForcedStop(); err != nil {
			return loop.Decision{}, err
		}
		if err := h.applyRules(); err != nil {
			return loop.Decision{}, err
		}
		return loop.Decision{Action: loop.Allow}, nil

	default:
		if err := h.applyRules(); err != nil {
			return loop.Decision{}, err
		}
		return loop.Decision{Action: loop.Allow}, nil
	}
}

// startLoop records the first sight of a session and asks loop_start whether it
// may run. A refusal (or a required hook's failure) never disarms the gate: it
// holds the session, whose tool calls and stop are then refused with the
// hook's reason.
func (h *handling) startLoop() error {
	def := h.e.Spec.Definition
	proceed, reason, err := h.fireLoopStart()
	if err != nil {
		return err
	}
	payload := map[string]any{
		"loop_id": def.ID, "harness": h.ev.Harness, "initial_state": def.InitialState,
		"scope": scopeName(def.Scope),
	}
	// Where the session runs, for a team's board over a shared store.
	if host, err := os.Hostname(); err == nil && host != "" {
		payload["machine"] = host
	}
	if h.e.Root != "" {
		payload["checkout"] = h.e.Root
	}
	if err := h.append(eventlog.TypeLoopStarted, "hook-loop", payload); err != nil {
		return err
	}
	if !proceed && !h.held {
		if reason == "" {
			reason = "a lifecycle hook refused loop_start"
		}
		if err := h.hold("loop_start", "", "loop_start refused: "+reason); err != nil {
			return err
		}
	}
	return h.fireSessionSpawned()
}

func scopeName(s string) string {
	if s == "" {
		return dsl.ScopeSession
	}
	return s
}

// applyRules runs the event map for the event, in file order: each matching rule
// appends its record, then applies its emit through the transition core only
// when the current state has that transition (so repeated events do not storm);
// a hook grants the rule's guard_satisfied, and evidence_bound_to_criteria once
// evidence is recorded. The available events are recomputed after each applied
// transition.
func (h *handling) applyRules() error {
	spec := h.e.Spec
	var rejected []string
	for i := range spec.EventMap {
		r := &spec.EventMap[i]
		if !r.Matches(h.ev, h.targets, h.e.Root) {
			continue
		}
		h.matched = append(h.matched, r.Index)
		in := LoopEvent{Event: r.Emit, Guards: r.GuardSatisfied, EvidenceGrants: true, OnReject: Continue}
		if r.Record != nil {
			in.Record = &Record{Type: r.Record.EventType, Actor: actor(r.Record, h.ev.Harness), Payload: h.recordPayload(r.Record)}
		}
		res, err := h.apply(in)
		if err != nil {
			return err
		}
		if len(res.Missing) > 0 {
			rejected = append(rejected, fmt.Sprintf("%s: %s (%s)", r.Emit, res.Reason, h.e.describeGuards(res.Missing)))
		}
	}
	if len(rejected) > 0 {
		h.steer = append(h.steer, "hook-loop: no transition applied: "+strings.Join(rejected, "; "))
	}
	return nil
}

// actor is who a rule's record names. "codex" (the Python original's word for
// the coding agent, kept by loops written for it) and "agent" mean the agent
// of the harness the event came from, so evidence under Claude Code is not
// logged as Codex's.
func actor(r *dsl.RecordSpec, harness string) string {
	switch {
	case r.Actor == "":
		return "hook-loop"
	case (r.Actor == "codex" || r.Actor == "agent") && harness != "":
		return harness
	}
	return r.Actor
}

// maxRecorded bounds text copied into a record, as the Python original did.
const maxRecorded = 2000

func (h *handling) recordPayload(r *dsl.RecordSpec) map[string]any {
	p := make(map[string]any, len(r.Payload)+len(r.Include))
	for k, v := range r.Payload {
		p[k] = v
	}
	ev := h.ev
	for _, key := range r.Include {
		switch key {
		case "command":
			p["command"] = dsl.CommandText(ev)
		case "exit_code":
			if ev.Result != nil && ev.Result.ExitCode != nil {
				p["exit_code"] = *ev.Result.ExitCode
			} else {
				p["exit_code"] = nil
			}
		case "stdout":
			out := ""
			if ev.Result != nil {
				out = ev.Result.Stdout
				if out == "" {
					out = ev.Result.Output
				}
			}
			p["stdout"] = clip(out)
		case "prompt":
			p["prompt"] = clip(ev.Prompt)
		case "tool_name":
			p["tool_name"] = ev.ToolName
		case "paths":
			p["paths"] = h.targets
		case "last_message":
			p["last_message"] = clip(ev.LastAssistantMessage)
		}
	}
	return p
}

func clip(s string) string {
	if len(s) > maxRecorded {
		return s[:maxRecorded]
	}
	return s
}

// transition applies t, records it (payload adds to from, event and to) and
// fires the lifecycle points it reaches.
func (h *handling) transition(t dsl.Transition, actor string, payload map[string]any) error {
	from := h.state
	h.state = t.To
	p := map[string]any{}
	for k, v := range payload {
		p[k] = v
	}
	p["from"], p["event"], p["to"] = from, t.Event, t.To
	if err := h.append(eventlog.TypeStateTransitioned, actor, p); err != nil {
		return err
	}
	if err := h.firePhaseChanged(from, t.To, t.Event); err != nil {
		return err
	}
	def := h.e.Spec.Definition
	if def.WaitsForHumanIn(t.To) {
		if err := h.fireWaiting(); err != nil {
			return err
		}
	}
	if def.IsTerminal(t.To) {
		if err := h.complete(terminalOutcome(def, t.To), false); err != nil {
			return err
		}
	}
	return nil
}

// refusedSession answers an event of a disarmed session: nothing, unless a
// session_start refusal disarmed it, when its resumption, a prompt or a tool
// call is refused and the harness asked to end the session. A stop is let through: refusing
// it would keep the agent working.
func refusedSession(reason string, sessionRefused bool, event string) loop.Decision {
	if !sessionRefused {
		return loop.Decision{Action: loop.Allow}
	}
	switch event {
	case loop.EventSessionStart, loop.EventUserPromptSubmit, loop.EventPreToolUse, loop.EventPermissionRequest:
		return loop.Decision{Action: loop.Block, Reason: reason, EndSession: true}
	}
	return loop.Decision{Action: loop.Allow}
}

// terminalOutcome names how a loop that reached state ended.
func terminalOutcome(def *dsl.Definition, state string) string {
	if state == def.StopState {
		return "stopped"
	}
	return "completed"
}

// complete records the session's outcome and fires loop_complete.
func (h *handling) complete(outcome string, forced bool) error {
	var extra map[string]any
	if forced {
		extra = map[string]any{"forced_by_harness": true}
	}
	return h.completeWith(outcome, extra)
}

func (h *handling) completeWith(outcome string, extra map[string]any) error {
	payload := map[string]any{"outcome": outcome, "final_state": h.state, "loop_id": h.e.Spec.Definition.ID}
	for k, v := range extra {
		payload[k] = v
	}
	h.outcome = outcome
	if err := h.append(eventlog.TypeLoopOutcome, "hook-loop", payload); err != nil {
		return err
	}
	return h.fireLoopComplete(outcome)
}

// stopGate refuses a stop until the loop is terminal, within the loop's cap.
func (h *handling) stopGate() (loop.Decision, error) {
	def := h.e.Spec.Definition
	hold := h.stopHold()
	switch {
	case hold != "":
	case def.IsTerminal(h.state):
		if s := h.tx.Session(h.sid); s.Outcome == "" || s.OutcomeForced {
			if err := h.complete(terminalOutcome(def, h.state), false); err != nil {
				return loop.Decision{}, err
			}
		}
		return loop.Decision{Action: loop.Allow}, nil
	case def.WaitsForHumanIn(h.state):
		// The loop waits for a person: stopping to ask is the right move.
		return loop.Decision{Action: loop.Allow}, nil
	}
	if h.tx.Session(h.sid).Paused {
		// Paused by a person: the agent may stop and wait for them.
		return loop.Decision{Action: loop.Allow}, nil
	}
	if h.e.EffectiveMode() != dsl.ModeEnforce {
		reason := h.e.StopMessage(h.state, h.view().Evidence)
		if err := h.wouldBlock("stop", map[string]any{"reason": reason}); err != nil {
			return loop.Decision{}, err
		}
		d := loop.Decision{Action: loop.Allow}
		if h.e.EffectiveMode() == dsl.ModeWarn {
			// The stop is allowed; the person learns what the loop still needs.
			d.SystemMessage = warnText(reason)
		}
		return d, nil
	}
	blocks := h.tx.Session(h.sid).StopBlocks
	// max_stop_blocks: 0 never caps: only the harness's own cap, if it has one,
	// ends the refusals, and noteForcedStop records that as forced.
	if def.StopCapped() && blocks >= def.EffectiveMaxStopBlocks() {
		msg := fmt.Sprintf("hook-loop: let the agent stop after %d refused stops in a row without progress; the loop %q is still in state %q (outcome: capped).", blocks, def.ID, h.state)
		if err := h.append(eventlog.TypeLoopOutcome, "hook-loop", map[string]any{
			"outcome": "capped", "final_state": h.state, "loop_id": def.ID, "stop_blocks": blocks,
		}); err != nil {
			return loop.Decision{}, err
		}
		return loop.Decision{Action: loop.Allow, Outcome: "capped", SystemMessage: msg, StopBlocks: blocks}, nil
	}
	reason := hold
	if reason == "" {
		reason = h.e.StopMessage(h.state, h.view().Evidence)
	}
	if err := h.append(eventlog.TypeStopRefused, "hook-loop", map[string]any{
		"message": reason, "messages": []string{reason}, "stop_blocks": blocks + 1,
		"stop_hook_active": h.ev.StopHookActive,
	}); err != nil {
		return loop.Decision{}, err
	}
	return loop.Decision{Action: loop.Block, Reason: reason, StopBlocks: blocks + 1}, nil
}

// pausedReason is what the model is told while a person has paused the session.
func pausedReason(reason string) string {
	if reason == "" {
		reason = "no reason given"
	}
	return "paused by the person: " + reason + " (you may stop and wait; `hook-loop resume` lifts the pause)"
}

// warnText is what a warn-mode loop tells the model instead of refusing.
func warnText(reason string) string {
	return "hook-loop (warn mode): this would have been refused: " + reason
}

// wouldBlock records what a warn- or audit-mode loop let through, and in warn
// mode tells the model why it would have been refused.
func (h *handling) wouldBlock(kind string, payload map[string]any) error {
	payload["kind"] = kind
	payload["mode"] = h.e.EffectiveMode()
	if err := h.append(eventlog.TypeWouldBlock, "hook-loop", payload); err != nil {
		return err
	}
	if reason, _ := payload["reason"].(string); h.e.EffectiveMode() == dsl.ModeWarn && kind == "tool" {
		h.steer = append(h.steer, warnText(reason))
	}
	return nil
}

// noteForcedStop detects that the harness ended a session we were refusing to let
// stop: the session ends while refused stops are outstanding and no outcome was
// recorded since. Claude Code does this after its own cap of consecutive refusals;
// a person interrupting does it too. status shows such an outcome as forced, apart
// from a stop the loop allowed.
func (h *handling) noteForcedStop() error {
	s := h.tx.Session(h.sid)
	if s.StopBlocks == 0 {
		return nil
	}
	var endedBy string
	switch h.ev.Name {
	case loop.EventSessionEnd:
		endedBy = "session_end"
	case loop.EventUserPromptSubmit:
		// In an interactive session a harness that overrides the refusals (Claude
		// Code after 8) ends the turn without a SessionEnd; the person's next
		// prompt is the first sign, and it must not inherit the old count.
		// Not so a prompt that is the refusal itself (Copilot CLI and Qwen Code
		// hand a refused stop's reason to the model as the next prompt) or an
		// empty one (Qwen Code's prompt event when it sends tool results back):
		// the agent is going on, and the refusals still count toward the cap.
		if strings.TrimSpace(h.ev.Prompt) == "" || h.echoesRefusal() {
			return nil
		}
		endedBy = "new_turn"
	default:
		return nil
	}
	return h.completeWith("forced", map[string]any{
		"forced_by_harness": true, "ended_by": endedBy, "end_reason": h.ev.Source, "stop_blocks": s.StopBlocks,
	})
}

// echoesRefusal reports whether a prompt is the session's last refused stop
// handed back by the harness (Copilot CLI and Qwen Code give the model a
// refused stop's reason as its next prompt).
func (h *handling) echoesRefusal() bool {
	s := h.tx.Session(h.sid)
	return s.StopBlocks > 0 && session.RefusalKey(h.ev.Prompt) == s.LastRefusal
}

func (h *handling) recordHookFired(d loop.Decision) error {
	var msgs []string
	if d.Reason != "" {
		msgs = append(msgs, clip(d.Reason))
	}
	if d.Context != "" {
		msgs = append(msgs, clip(d.Context))
	}
	return h.append(eventlog.TypeHookFired, "hook-loop", map[string]any{
		"platform":        h.ev.Harness,
		"hook_event_name": h.ev.Name,
		"native_event":    h.ev.NativeName,
		"tool_name":       nilIfEmpty(h.ev.ToolName),
		"verdict":         string(d.Action),
		"allowed":         d.Allowed(),
		"messages":        msgs,
		"matched_rules":   h.matched,
	})
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// policy is the loop's built-in tool policy in this project.
func (e *Engine) policy() *guard.Policy {
	return &guard.Policy{Def: e.Spec.Definition, Root: e.Root, ConfigPath: e.ConfigPath, LogPath: e.LogPath,
		OwnedPaths: e.OwnedPaths, SecretPaths: e.SecretPaths, Home: e.Home, Vars: e.Vars, Self: e.Self}
}

// CheckTool applies the built-in guardrails and the state's policy to a tool
// request, as Handle does before it lets a tool run.
func (e *Engine) CheckTool(ev *loop.HookEvent, state string) guard.Check {
	p := e.policy()
	return p.Check(ev, p.Read(ev), state)
}
