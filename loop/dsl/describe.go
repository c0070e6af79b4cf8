package dsl

import (
	"fmt"
	"strings"

	"github.com/hook-loop/hook-loop/loop"
)

// eventPhrase names a hook event in words the agent understands. (A switch,
// unlike a package-level map, costs the hook nothing at start-up.)
func eventPhrase(event string) (string, bool) {
	switch event {
	case loop.EventSessionStart:
		return "the start of a session", true
	case loop.EventUserPromptSubmit:
		return "a prompt from the person", true
	case loop.EventPreToolUse:
		return "a tool request", true
	case loop.EventPermissionRequest:
		return "a permission request", true
	case loop.EventPostToolUse:
		return "a finished tool call", true
	case loop.EventStop:
		return "your final message", true
	case loop.EventSubagentStop:
		return "a subagent's final message", true
	case loop.EventPreCompact, loop.EventPostCompact:
		return "a compaction", true
	case loop.EventSessionEnd:
		return "the end of the session", true
	}
	return "", false
}

// Describe says in plain words what makes the rule fire, e.g. "a Bash command
// matching `go test` that exits 0".
func (r *Rule) Describe() string {
	w := r.When
	var b strings.Builder
	switch {
	case r.CodexEvent == loop.EventPostToolUse || r.CodexEvent == loop.EventPreToolUse:
		b.WriteString(toolPhrase(r.CodexEvent, w.ToolName))
	case r.CodexEvent == loop.EventStop && w.LastMessageMatch != nil:
		b.WriteString("a final message")
	default:
		if p, ok := eventPhrase(r.CodexEvent); ok {
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
	if event == loop.EventPreToolUse {
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
func (s *Spec) DescribeEmitters(event string) []string {
	type group struct {
		rest  string
		tools []string
		rule  *Rule
	}
	var groups []*group
	for i := range s.EventMap {
		r := &s.EventMap[i]
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
		if g.rule.CodexEvent == loop.EventPreToolUse {
			phrase = "a request for " + phrase
		}
		generic := toolPhrase(g.rule.CodexEvent, "")
		out = append(out, phrase+strings.TrimPrefix(g.rest, generic))
	}
	return out
}
