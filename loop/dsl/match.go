package dsl

import (
	"path/filepath"
	"strings"

	"github.com/hook-loop/hook-loop/loop"
	"github.com/hook-loop/hook-loop/loop/guard/shell"

	"github.com/tidwall/gjson"
)

// Matches reports whether the rule fires for ev: the event name is the rule's
// codex_event and every condition of its "when" holds. targets are the paths
// the call writes, as the engine judges them (path_match reads them).
func (r *Rule) Matches(ev *loop.HookEvent, targets []string, root string) bool {
	if r.CodexEvent != ev.Name {
		return false
	}
	return r.When.Matches(ev, targets, root)
}

// Matches applies every set condition (logical AND). Regexes search, as Python's
// re.search did in the Python original.
func (m *Matcher) Matches(ev *loop.HookEvent, targets []string, root string) bool {
	if m.ToolName != "" && ev.ToolName != m.ToolName {
		return false
	}
	if m.CommandMatch != nil && !m.commandMatches(ev) {
		return false
	}
	if m.PromptMatch != nil && !m.PromptMatch.MatchString(ev.Prompt) {
		return false
	}
	if m.PromptNotMatch != nil && m.PromptNotMatch.MatchString(ev.Prompt) {
		return false
	}
	if m.LastMessageMatch != nil && !m.LastMessageMatch.MatchString(ev.LastAssistantMessage) {
		return false
	}
	if m.PathMatch != nil && !anyPathMatches(m, targets, root) {
		return false
	}
	if m.ExitCode != nil {
		// An unknown exit code never matches: the Python original's exit_code rules
		// "matched" nothing on Codex for exactly this reason, and guessing 0 would
		// let a failing command advance the loop.
		if ev.Result == nil || ev.Result.ExitCode == nil || *ev.Result.ExitCode != *m.ExitCode {
			return false
		}
	}
	if m.ExitCodeNot != nil {
		// "Failed" needs a known exit code too: an unknown one is not a failure.
		if ev.Result == nil || ev.Result.ExitCode == nil || *ev.Result.ExitCode == *m.ExitCodeNot {
			return false
		}
	}
	return true
}

// commandMatches applies command_match. Beside an exit code condition it is
// evidence about a program's result, so it must match a command whose own
// exit status the shell line reports (see shell.StatusCalls), never text that
// another command prints, searches or commits, nor a command whose status a
// `| tail` or `|| true` replaced. Without one it searches the whole line, as
// guardrails need.
func (m *Matcher) commandMatches(ev *loop.HookEvent) bool {
	if (m.ExitCode == nil && m.ExitCodeNot == nil) || ev.Command == "" {
		return m.CommandMatch.MatchString(CommandText(ev))
	}
	if ev.Result == nil || ev.Result.ExitCode == nil {
		return false // the exit code conditions refuse it anyway
	}
	re := m.CommandMatch.Regexp()
	for _, c := range shell.StatusCalls(ev.Command, *ev.Result.ExitCode) {
		if c.Matches(re) {
			return true
		}
	}
	return false
}

func anyPathMatches(m *Matcher, paths []string, root string) bool {
	for _, p := range paths {
		for _, form := range PathForms(p, root) {
			if m.PathMatch.MatchString(form) {
				return true
			}
		}
	}
	return false
}

// PathForms gives the ways a user may have written a path pattern against: the
// path as the tool named it, and relative to the project root with slashes.
func PathForms(p, root string) []string {
	forms := []string{filepath.ToSlash(p)}
	if root != "" && filepath.IsAbs(p) {
		if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
			forms = append(forms, filepath.ToSlash(rel))
		}
	}
	return forms
}

// CommandText is what command_match searches: the shell command of a Bash call,
// else tool_input.command (the patch text of apply_patch, as in the Python original).
func CommandText(ev *loop.HookEvent) string {
	if ev.Command != "" {
		return ev.Command
	}
	if len(ev.ToolInput) > 0 {
		return gjson.GetBytes(ev.ToolInput, "command").String()
	}
	return ""
}
