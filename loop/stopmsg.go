package loop

import (
	"fmt"
	"strings"
)

// StopMessage is what the agent reads when hook-loop refuses to let it stop. It
// is built from the DSL — the current state, the events that would leave it and
// what would emit them, the guards still missing and the state's instructions —
// never a fixed sentence (the prototype's lesson 10).
func (e *Engine) StopMessage(state string, evidence int) string {
	def := e.Spec.Definition
	var b strings.Builder
	fmt.Fprintf(&b, "hook-loop: you cannot stop yet. The loop %q is in state %q, which is not a terminal state (%s).",
		def.ID, state, strings.Join(def.TerminalStates, ", "))
	if ins := def.Instructions[state]; ins != "" {
		fmt.Fprintf(&b, "\nWhat to do now: %s", ins)
	}
	out := def.Outgoing(state)
	if len(out) == 0 {
		b.WriteString("\nNo transition leaves this state; ask the person for help.")
		return b.String()
	}
	b.WriteString("\nTo move on:")
	for _, t := range out {
		fmt.Fprintf(&b, "\n- %s → %s", t.Event, t.To)
		ways := e.DescribeEmitters(t.Event)
		if len(ways) > 0 {
			fmt.Fprintf(&b, ": happens on %s", strings.Join(ways, ", or on "))
		} else if len(e.Spec.EventMap) > 0 {
			b.WriteString(": no rule emits this event")
		}
		var missing []string
		for _, g := range t.Guards {
			if g == GuardEvidence && evidence > 0 {
				continue
			}
			missing = append(missing, g)
		}
		if len(missing) > 0 {
			fmt.Fprintf(&b, "; still missing: %s", e.describeGuards(missing))
		}
	}
	return b.String()
}

// describeGuards says in plain words what would satisfy each guard.
func (e *Engine) describeGuards(guards []string) string {
	parts := make([]string, 0, len(guards))
	for _, g := range guards {
		if g == GuardEvidence {
			parts = append(parts, g+" (recorded evidence: "+e.evidenceHint()+")")
			continue
		}
		var by []string
		for i := range e.Spec.EventMap {
			r := &e.Spec.EventMap[i]
			for _, s := range r.GuardSatisfied {
				if s == g {
					by = append(by, r.Describe())
				}
			}
		}
		if len(by) > 0 {
			parts = append(parts, g+" (granted on "+strings.Join(by, " or ")+")")
		} else {
			parts = append(parts, g)
		}
	}
	return strings.Join(parts, ", ")
}

func (e *Engine) evidenceHint() string {
	var ways []string
	for i := range e.Spec.EventMap {
		r := &e.Spec.EventMap[i]
		if r.Record != nil && r.Record.EventType == "evidence_registered" {
			ways = append(ways, r.Describe())
		}
	}
	if len(ways) == 0 {
		return "an evidence_registered event"
	}
	return strings.Join(ways, " or ")
}

// eventPhrases name each hook event in words the agent understands.
var eventPhrases = map[string]string{
	EventSessionStart:      "the start of a session",
	EventUserPromptSubmit:  "a prompt from the person",
	EventPreToolUse:        "a tool request",
	EventPermissionRequest: "a permission request",
	EventPostToolUse:       "a finished tool call",
	EventStop:              "your final message",
	EventSubagentStop:      "a subagent's final message",
	EventPreCompact:        "a compaction",
	EventPostCompact:       "a compaction",
	EventSessionEnd:        "the end of the session",
}

// Describe says in plain words what makes the rule fire, e.g. "a Bash command
// matching `go test` that exits 0".
func (r *Rule) Describe() string {
	w := r.When
	var b strings.Builder
	switch {
	case r.CodexEvent == EventPostToolUse || r.CodexEvent == EventPreToolUse:
		b.WriteString(toolPhrase(r.CodexEvent, w.ToolName))
	case r.CodexEvent == EventStop && w.LastMessageMatch != nil:
		b.WriteString("a final message")
	default:
		if p, ok := eventPhrases[r.CodexEvent]; ok {
			b.WriteString(p)
		} else {
			b.WriteString(r.CodexEvent)
		}
	}
	if w.CommandMatch != nil {
		fmt.Fprintf(&b, " matching `%s`", w.CommandMatch)
	}
	if w.PathMatch != nil {
		fmt.Fprintf(&b, " that writes a file matching `%s`", w.PathMatch)
	}
	if w.PromptMatch != nil {
		fmt.Fprintf(&b, " matching `%s`", w.PromptMatch)
	}
	if w.PromptNotMatch != nil {
		fmt.Fprintf(&b, " not matching `%s`", w.PromptNotMatch)
	}
	if w.LastMessageMatch != nil {
		fmt.Fprintf(&b, " matching `%s`", w.LastMessageMatch)
	}
	if w.ExitCode != nil {
		fmt.Fprintf(&b, " that exits %d", *w.ExitCode)
	}
	if w.ExitCodeNot != nil {
		fmt.Fprintf(&b, " that exits with a code other than %d", *w.ExitCodeNot)
	}
	return b.String()
}

func toolPhrase(event, toolName string) string {
	tool := "tool call"
	if toolName == "Bash" {
		tool = "Bash command"
	} else if toolName != "" {
		tool = toolName + " call"
	}
	if event == EventPreToolUse {
		return "a request for " + article(tool) + " " + tool
	}
	return article(tool) + " " + tool
}

func article(word string) string {
	if word != "" && strings.ContainsRune("aeiouAEIOU", rune(word[0])) {
		return "an"
	}
	return "a"
}

// DescribeEmitters says in words what emits event: rules that differ only in the
// tool they name are merged ("an apply_patch, Write or Edit call that ...").
func (e *Engine) DescribeEmitters(event string) []string {
	type group struct {
		rest  string
		tools []string
		rule  *Rule
	}
	var groups []*group
	for i := range e.Spec.EventMap {
		r := &e.Spec.EventMap[i]
		if r.Emit != event {
			continue
		}
		key := *r
		key.When.ToolName = ""
		rest := key.Describe()
		merged := false
		if r.When.ToolName != "" && r.When.ToolName != "Bash" {
			for _, g := range groups {
				if g.rest == rest && len(g.tools) > 0 && g.rule.CodexEvent == r.CodexEvent {
					g.tools = append(g.tools, r.When.ToolName)
					merged = true
					break
				}
			}
		}
		if !merged {
			g := &group{rest: rest, rule: r}
			if r.When.ToolName != "" && r.When.ToolName != "Bash" {
				g.tools = []string{r.When.ToolName}
			}
			groups = append(groups, g)
		}
	}
	out := make([]string, 0, len(groups))
	for _, g := range groups {
		if len(g.tools) <= 1 {
			out = append(out, g.rule.Describe())
			continue
		}
		list := strings.Join(g.tools[:len(g.tools)-1], ", ") + " or " + g.tools[len(g.tools)-1]
		phrase := article(list) + " " + list + " call"
		if g.rule.CodexEvent == EventPreToolUse {
			phrase = "a request for " + phrase
		}
		generic := toolPhrase(g.rule.CodexEvent, "")
		out = append(out, phrase+strings.TrimPrefix(g.rest, generic))
	}
	return out
}

// Contract is the short text injected at SessionStart: loop id, current state,
// and what moves it on.
func (e *Engine) Contract(state string) string {
	def := e.Spec.Definition
	var b strings.Builder
	fmt.Fprintf(&b, "hook-loop is gating this session with the loop %q. It is in state %q; you can stop only once it reaches %s.",
		def.ID, state, strings.Join(def.TerminalStates, " or "))
	if ins := def.Instructions[state]; ins != "" {
		fmt.Fprintf(&b, " Now: %s", ins)
	}
	var next []string
	for _, t := range def.Outgoing(state) {
		if ways := e.DescribeEmitters(t.Event); len(ways) > 0 {
			next = append(next, fmt.Sprintf("%s (on %s)", t.To, strings.Join(ways, " or ")))
		} else {
			next = append(next, t.To)
		}
	}
	if len(next) > 0 {
		fmt.Fprintf(&b, " Next: %s.", strings.Join(next, "; "))
	}
	return b.String()
}

func (h *handling) contract() string { return h.e.Contract(h.state) }
