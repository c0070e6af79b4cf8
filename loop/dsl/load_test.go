package dsl

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/sjson"
)

// baseDSL is a small valid file using every section, the Python original's keys and
// hook-loop's extensions.
const baseDSL = `{
  "$schema": "https://example.invalid/hook-loop.schema.json",
  "comment": "top-level comments are ignored",
  "loop": {
    "id": "delivery",
    "comment": "so are comments inside the loop",
    "initial_state": "backlog",
    "states": ["backlog", "building", "evaluating", "done", "stopped"],
    "events": ["kickoff", "built", "evaluator_passed", "evaluator_failed"],
    "transitions": [
      {"from": "backlog", "event": "kickoff", "to": "building", "comment": "x"},
      {"from": "building", "event": "built", "to": "evaluating"},
      {"from": "evaluating", "event": "evaluator_passed", "to": "done", "guards": ["evidence_bound_to_criteria"]},
      {"from": "evaluating", "event": "evaluator_failed", "to": "building"}
    ]
  },
  "simulation": {
    "budget": {"max_turns": 6},
    "agent_steps": {
      "backlog": [{"event": "kickoff"}],
      "building": [{"event": "built", "payload": {"n": 1}}]
    },
    "verdicts": [{"status": "PASS", "details": "ok"}]
  },
  "codex": {
    "event_map": [
      {"codex_event": "UserPromptSubmit", "when": {"prompt_match": "(?i)start"}, "emit": "kickoff"},
      {"codex_event": "PostToolUse", "when": {"tool_name": "Bash", "command_match": "go test", "exit_code": 0},
       "record": {"event_type": "evidence_registered", "actor": "codex", "payload": {"kind": "verification"}, "include": ["command", "exit_code"]},
       "emit": "built"},
      {"codex_event": "Stop", "when": {"last_message_match": "(?i)verdict: pass"}, "emit": "evaluator_passed", "guard_satisfied": ["evidence_bound_to_criteria"]},
      {"codex_event": "Stop", "when": {"last_message_match": "NEEDS_WORK"}, "emit": "evaluator_failed"}
    ]
  }
}`

func mustSet(t *testing.T, doc, path string, v any) string {
	t.Helper()
	out, err := sjson.Set(doc, path, v)
	if err != nil {
		t.Fatalf("sjson.Set %s: %v", path, err)
	}
	return out
}

func mustSetRaw(t *testing.T, doc, path, raw string) string {
	t.Helper()
	out, err := sjson.SetRaw(doc, path, raw)
	if err != nil {
		t.Fatalf("sjson.SetRaw %s: %v", path, err)
	}
	return out
}

func mustDelete(t *testing.T, doc, path string) string {
	t.Helper()
	out, err := sjson.Delete(doc, path)
	if err != nil {
		t.Fatalf("sjson.Delete %s: %v", path, err)
	}
	return out
}

func hasDiag(ds Diagnostics, code, path string) bool {
	for _, d := range ds {
		if d.Code == code && d.Path == path {
			return true
		}
	}
	return false
}

func TestParseBaseDSL(t *testing.T) {
	spec, ds, err := Parse("base.json", []byte(baseDSL))
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, describeDiagnostics(ds))
	}
	if len(ds) != 0 {
		t.Fatalf("want no diagnostics, got:\n%s", describeDiagnostics(ds))
	}
	d := spec.Definition
	if d.ID != "delivery" || d.InitialState != "backlog" || len(d.States) != 5 || len(d.Transitions) != 4 {
		t.Fatalf("definition = %+v", d)
	}
	if !slices.Equal(d.TerminalStates, []string{"done", "stopped"}) {
		t.Errorf("terminal_states default = %v, want [done stopped]", d.TerminalStates)
	}
	if d.StopState != "stopped" {
		t.Errorf("stop_state default = %q, want stopped", d.StopState)
	}
	if d.MaxStopBlocks != DefaultMaxStopBlocks || d.Scope != ScopeSession || d.FailClosed {
		t.Errorf("extension defaults: max_stop_blocks=%d scope=%q fail_closed=%v", d.MaxStopBlocks, d.Scope, d.FailClosed)
	}
	if !d.Guardrails.RiskyCommands || !d.Guardrails.ProtectLoopFiles || !slices.Equal(d.Guardrails.ProtectedPaths, []string{".git/"}) {
		t.Errorf("guardrails default = %+v", d.Guardrails)
	}
	if _, ok := d.Raw["comment"]; !ok {
		t.Errorf("Raw lacks the loop's unknown key comment: %v", d.Raw)
	}
	if b := spec.Simulation.Budget; b.MaxTurns != 6 || b.MaxNoProgressTurns != 2 {
		t.Errorf("budget = %+v, want max_turns 6 and the default max_no_progress_turns 2", b)
	}
	if got := spec.Simulation.AgentSteps["building"][0].Payload["n"]; got != float64(1) {
		t.Errorf("agent step payload n = %#v", got)
	}
	if len(spec.EventMap) != 4 {
		t.Fatalf("event map has %d rules", len(spec.EventMap))
	}
	for i, r := range spec.EventMap {
		if r.Index != i {
			t.Errorf("rule %d has Index %d", i, r.Index)
		}
	}
	r := spec.EventMap[1]
	if r.When.ToolName != "Bash" || r.When.ExitCode == nil || *r.When.ExitCode != 0 || !r.When.CommandMatch.MatchString("go test ./...") {
		t.Errorf("rule 1 matcher = %+v", r.When)
	}
	if r.Record == nil || r.Record.EventType != "evidence_registered" || r.Record.Actor != "codex" || r.Record.Payload["kind"] != "verification" {
		t.Errorf("rule 1 record = %+v", r.Record)
	}
	if !spec.EventMap[0].When.PromptMatch.MatchString("please START now") {
		t.Error("(?i) inline flag is not honoured")
	}
}

func TestParseExtensions(t *testing.T) {
	doc := mustSetRaw(t, baseDSL, "loop.instructions", `{"building": "write the code, then run go test"}`)
	doc = mustSet(t, doc, "loop.max_stop_blocks", 3)
	doc = mustSet(t, doc, "loop.scope", "project")
	doc = mustSetRaw(t, doc, "loop.policies", `{"backlog": {"deny_tools": ["Write", "Edit"], "deny_command_match": "(?i)rm -rf", "reason": "plan first"}, "building": {"allow_tools": ["Bash"]}}`)
	doc = mustSetRaw(t, doc, "loop.waits_for_human", `["evaluating"]`)
	doc = mustSetRaw(t, doc, "loop.approval", `{"evaluating": {"approve": "evaluator_passed", "reject": "evaluator_failed"}}`)
	doc = mustSet(t, doc, "loop.mode", "warn")
	doc = mustSet(t, doc, "loop.fail_closed", true)
	doc = mustSetRaw(t, doc, "loop.guardrails", `{"risky_commands": false, "protected_paths": ["secrets/"]}`)
	spec, ds, err := Parse("ext.json", []byte(doc))
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, describeDiagnostics(ds))
	}
	d := spec.Definition
	if d.Instructions["building"] != "write the code, then run go test" {
		t.Errorf("instructions = %v", d.Instructions)
	}
	if d.MaxStopBlocks != 3 || d.Scope != ScopeProject || !d.FailClosed {
		t.Errorf("max_stop_blocks=%d scope=%q fail_closed=%v", d.MaxStopBlocks, d.Scope, d.FailClosed)
	}
	p := d.Policies["backlog"]
	if !slices.Equal(p.DenyTools, []string{"Write", "Edit"}) || p.Reason != "plan first" || !p.DenyCommandMatch.MatchString("RM -RF /") {
		t.Errorf("policy backlog = %+v", p)
	}
	if !slices.Equal(d.Policies["building"].AllowTools, []string{"Bash"}) {
		t.Errorf("policy building = %+v", d.Policies["building"])
	}
	if !d.WaitsForHumanIn("evaluating") {
		t.Errorf("waits_for_human = %v", d.WaitsForHuman)
	}
	if a := d.Approval["evaluating"]; a.Approve != "evaluator_passed" || a.Reject != "evaluator_failed" {
		t.Errorf("approval = %+v", d.Approval)
	}
	if d.Mode != ModeWarn {
		t.Errorf("mode = %q", d.Mode)
	}
	if g := d.Guardrails; g.RiskyCommands || !g.ProtectLoopFiles || !slices.Equal(g.ProtectedPaths, []string{"secrets/"}) {
		t.Errorf("guardrails = %+v", g)
	}
}

func TestParseRecordOnlyRuleAndStringExitCode(t *testing.T) {
	doc := mustSetRaw(t, baseDSL, "codex.event_map.-1",
		`{"codex_event": "PostToolUse", "when": {"exit_code": "1"}, "record": {"event_type": "failure_seen", "actor": "codex", "include": ["stdout"]}}`)
	spec, ds, err := Parse("x.json", []byte(doc))
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, describeDiagnostics(ds))
	}
	r := spec.EventMap[4]
	if r.Emit != "" || r.Record == nil || r.Record.EventType != "failure_seen" {
		t.Errorf("record-only rule = %+v", r)
	}
	if r.When.ExitCode == nil || *r.When.ExitCode != 1 {
		t.Errorf("exit_code \"1\" parsed as %v", r.When.ExitCode)
	}
}

// TestDiagnostics checks every diagnostic code: each case breaks the base file in
// one way and names the code and the JSON path that must be reported.
func TestDiagnostics(t *testing.T) {
	cases := []struct {
		name     string
		edit     func(t *testing.T, doc string) string
		code     string
		path     string
		severity string
		message  string // substring of the message
	}{
		{"missing loop", func(t *testing.T, d string) string { return mustDelete(t, d, "loop") },
			CodeMissingField, "loop", SeverityError, "DSL document must contain a loop object"},
		{"loop not an object", func(t *testing.T, d string) string { return mustSet(t, d, "loop", "x") },
			CodeBadType, "loop", SeverityError, "(got string)"},
		{"missing id", func(t *testing.T, d string) string { return mustDelete(t, d, "loop.id") },
			CodeMissingField, "loop.id", SeverityError, "id must be a non-empty string"},
		{"id wrong type", func(t *testing.T, d string) string { return mustSet(t, d, "loop.id", 7) },
			CodeBadType, "loop.id", SeverityError, "id must be a non-empty string (got number)"},
		{"empty id", func(t *testing.T, d string) string { return mustSet(t, d, "loop.id", "") },
			CodeBadValue, "loop.id", SeverityError, "non-empty"},
		{"states item wrong type", func(t *testing.T, d string) string { return mustSet(t, d, "loop.states.1", false) },
			CodeBadType, "loop.states[1]", SeverityError, "states must be a list of non-empty strings"},
		{"unknown initial state", func(t *testing.T, d string) string { return mustSet(t, d, "loop.initial_state", "nowhere") },
			CodeUnknownState, "loop.initial_state", SeverityError, "initial_state references unknown state: nowhere"},
		{"unknown transition target", func(t *testing.T, d string) string { return mustSet(t, d, "loop.transitions.3.to", "x") },
			CodeUnknownState, "loop.transitions[3].to", SeverityError, "transition references unknown state: x"},
		{"unknown transition event", func(t *testing.T, d string) string { return mustSet(t, d, "loop.transitions.1.event", "nope") },
			CodeUnknownEvent, "loop.transitions[1].event", SeverityError, "transition references unknown event: nope"},
		{"no event map", func(t *testing.T, d string) string { return mustDelete(t, d, "codex") },
			CodeNoEventMap, "codex", SeverityWarning, "so under a real harness it never moves"},
		{"duplicate state", func(t *testing.T, d string) string { return mustSet(t, d, "loop.states.-1", "building") },
			CodeDuplicateState, "loop.states[5]", SeverityError, "duplicate state: building"},
		{"duplicate event", func(t *testing.T, d string) string { return mustSet(t, d, "loop.events.-1", "built") },
			CodeDuplicateEvent, "loop.events[4]", SeverityError, "duplicate event: built"},
		{"duplicate terminal state", func(t *testing.T, d string) string {
			return mustSetRaw(t, d, "loop.terminal_states", `["done", "stopped", "done"]`)
		}, CodeDuplicateTerminalState, "loop.terminal_states[2]", SeverityError, "duplicate terminal state: done"},
		{"duplicate transition", func(t *testing.T, d string) string {
			return mustSetRaw(t, d, "loop.transitions.-1", `{"from": "backlog", "event": "kickoff", "to": "done"}`)
		}, CodeDuplicateTransition, "loop.transitions[4]", SeverityError, "duplicate transition: backlog/kickoff"},
		{"no terminal states", func(t *testing.T, d string) string {
			d = mustSetRaw(t, d, "loop.states", `["backlog", "building", "evaluating", "finished"]`)
			return d
		}, CodeNoTerminalStates, "loop.terminal_states", SeverityError, "terminal_states must be a non-empty list"},
		{"stop state not terminal", func(t *testing.T, d string) string { return mustSet(t, d, "loop.stop_state", "building") },
			CodeStopStateNotTerminal, "loop.stop_state", SeverityError, "stop_state must reference a terminal state: building"},
		{"positive int", func(t *testing.T, d string) string { return mustSet(t, d, "simulation.budget.max_turns", 0) },
			CodeBadValue, "simulation.budget.max_turns", SeverityError, "must be a positive integer"},
		{"float is not an int", func(t *testing.T, d string) string {
			return mustSetRaw(t, d, "simulation.budget.max_no_progress_turns", "2.0")
		}, CodeBadType, "simulation.budget.max_no_progress_turns", SeverityError, "must be a positive integer (got number 2.0)"},
		{"verdict status", func(t *testing.T, d string) string { return mustSet(t, d, "simulation.verdicts.0.status", "OK") },
			CodeBadValue, "simulation.verdicts[0].status", SeverityError, "PASS or NEEDS_WORK"},
		{"agent step for unknown state", func(t *testing.T, d string) string {
			return mustSetRaw(t, d, "simulation.agent_steps.missing", `[{"event": "kickoff"}]`)
		}, CodeUnknownState, "simulation.agent_steps.missing", SeverityError, "simulation.agent_steps references unknown state: missing"},
		{"agent step without transition", func(t *testing.T, d string) string {
			return mustSet(t, d, "simulation.agent_steps.backlog.0.event", "built")
		}, CodeStepWithoutTransition, "simulation.agent_steps.backlog[0].event", SeverityError, "No transition for simulation step: backlog/built"},
		{"unknown codex event", func(t *testing.T, d string) string {
			return mustSet(t, d, "codex.event_map.0.codex_event", "AfterTool")
		},
			CodeUnknownCodexEvent, "codex.event_map[0].codex_event", SeverityError, "not a supported hook event: AfterTool"},
		{"emit unknown event", func(t *testing.T, d string) string { return mustSet(t, d, "codex.event_map.0.emit", "ghost") },
			CodeUnknownEvent, "codex.event_map[0].emit", SeverityError, "codex.event_map emit references unknown event: ghost"},
		{"emit without transition", func(t *testing.T, d string) string {
			d = mustSet(t, d, "loop.events.-1", "unused")
			return mustSet(t, d, "codex.event_map.0.emit", "unused")
		}, CodeEmitWithoutTransition, "codex.event_map[0].emit", SeverityError, "codex.event_map emit has no matching transition: unused"},
		{"rule without emit or record", func(t *testing.T, d string) string { return mustDelete(t, d, "codex.event_map.0.emit") },
			CodeMissingField, "codex.event_map[0].emit", SeverityError, "emit must be a non-empty string"},
		{"record without actor", func(t *testing.T, d string) string { return mustDelete(t, d, "codex.event_map.1.record.actor") },
			CodeMissingField, "codex.event_map[1].record.actor", SeverityError, "actor must be a non-empty string"},
		{"lookahead regex", func(t *testing.T, d string) string {
			return mustSet(t, d, "codex.event_map.1.when.command_match", "go (?=test)")
		},
			CodeBadRegex, "codex.event_map[1].when.command_match", SeverityError, "rule 1 (PostToolUse): command_match"},
		{"backreference regex", func(t *testing.T, d string) string {
			return mustSet(t, d, "codex.event_map.0.when.prompt_match", `(a)\1`)
		},
			CodeBadRegex, "codex.event_map[0].when.prompt_match", SeverityError, "does not compile"},
		{"exit code not a number", func(t *testing.T, d string) string { return mustSet(t, d, "codex.event_map.1.when.exit_code", "zero") },
			CodeBadValue, "codex.event_map[1].when.exit_code", SeverityError, "numeric string"},
		{"exit code wrong type", func(t *testing.T, d string) string { return mustSet(t, d, "codex.event_map.1.when.exit_code", true) },
			CodeBadType, "codex.event_map[1].when.exit_code", SeverityError, "(got boolean)"},
		{"event_map not a list", func(t *testing.T, d string) string { return mustSetRaw(t, d, "codex.event_map", `{}`) },
			CodeBadType, "codex.event_map", SeverityError, "codex.event_map must be a list (got object)"},
		{"instructions for unknown state", func(t *testing.T, d string) string { return mustSetRaw(t, d, "loop.instructions", `{"ghost": "x"}`) },
			CodeUnknownState, "loop.instructions.ghost", SeverityError, "instructions references unknown state: ghost"},
		{"scope value", func(t *testing.T, d string) string { return mustSet(t, d, "loop.scope", "global") },
			CodeBadValue, "loop.scope", SeverityError, `scope must be "session" or "project"`},
		{"policy regex", func(t *testing.T, d string) string {
			return mustSetRaw(t, d, "loop.policies", `{"building": {"deny_command_match": "(?<=x)y"}}`)
		}, CodeBadRegex, "loop.policies.building.deny_command_match", SeverityError, "policy for state building"},
		{"waits_for_human unknown state", func(t *testing.T, d string) string { return mustSetRaw(t, d, "loop.waits_for_human", `["review"]`) },
			CodeUnknownState, "loop.waits_for_human[0]", SeverityError, "unknown state: review"},
		{"mode value", func(t *testing.T, d string) string { return mustSet(t, d, "loop.mode", "lenient") },
			CodeBadValue, "loop.mode", SeverityError, `mode must be "enforce", "warn" or "audit" (got "lenient")`},
		{"mode type", func(t *testing.T, d string) string { return mustSet(t, d, "loop.mode", 1) },
			CodeBadType, "loop.mode", SeverityError, "(got number)"},
		{"approval state not waiting", func(t *testing.T, d string) string {
			return mustSetRaw(t, d, "loop.approval", `{"evaluating": {"approve": "evaluator_passed"}}`)
		}, CodeBadValue, "loop.approval.evaluating", SeverityError, "approval state evaluating is not in waits_for_human"},
		{"approval unknown state", func(t *testing.T, d string) string {
			return mustSetRaw(t, d, "loop.approval", `{"review": {"approve": "evaluator_passed"}}`)
		}, CodeUnknownState, "loop.approval.review", SeverityError, "approval references unknown state: review"},
		{"approval unknown event", func(t *testing.T, d string) string {
			d = mustSetRaw(t, d, "loop.waits_for_human", `["evaluating"]`)
			return mustSetRaw(t, d, "loop.approval", `{"evaluating": {"approve": "ghost"}}`)
		}, CodeUnknownEvent, "loop.approval.evaluating.approve", SeverityError, "approval references unknown event: ghost"},
		{"approval event does not leave", func(t *testing.T, d string) string {
			d = mustSetRaw(t, d, "loop.waits_for_human", `["evaluating"]`)
			return mustSetRaw(t, d, "loop.approval", `{"evaluating": {"approve": "evaluator_passed", "reject": "kickoff"}}`)
		}, CodeBadValue, "loop.approval.evaluating.reject", SeverityError, "approval event kickoff has no transition from state evaluating"},
		{"approval without approve", func(t *testing.T, d string) string {
			d = mustSetRaw(t, d, "loop.waits_for_human", `["evaluating"]`)
			return mustSetRaw(t, d, "loop.approval", `{"evaluating": {"reject": "evaluator_failed"}}`)
		}, CodeMissingField, "loop.approval.evaluating.approve", SeverityError, "approve must be a non-empty string"},
		{"max_stop_blocks", func(t *testing.T, d string) string { return mustSet(t, d, "loop.max_stop_blocks", -1) },
			CodeBadValue, "loop.max_stop_blocks", SeverityError, "max_stop_blocks must be 0 (never capped) or a positive integer (got -1)"},
		{"max_stop_blocks type", func(t *testing.T, d string) string { return mustSet(t, d, "loop.max_stop_blocks", "8") },
			CodeBadType, "loop.max_stop_blocks", SeverityError, "max_stop_blocks must be 0 (never capped) or a positive integer (got string"},
		{"guardrails bool", func(t *testing.T, d string) string {
			return mustSetRaw(t, d, "loop.guardrails", `{"risky_commands": "no"}`)
		},
			CodeBadType, "loop.guardrails.risky_commands", SeverityError, "true or false"},
		{"fail_closed bool", func(t *testing.T, d string) string { return mustSet(t, d, "loop.fail_closed", 1) },
			CodeBadType, "loop.fail_closed", SeverityError, "true or false"},

		// Warnings.
		{"duplicate key", func(t *testing.T, d string) string {
			return strings.Replace(d, `"id": "delivery",`, `"id": "first", "id": "delivery",`, 1)
		}, CodeDuplicateKey, "loop.id", SeverityWarning, "the last value is used"},
		{"no stop state", func(t *testing.T, d string) string { return mustSetRaw(t, d, "loop.terminal_states", `["done"]`) },
			CodeNoStopState, "loop.stop_state", SeverityWarning, "loop.stop_state is required for DSL simulation"},
		{"unknown include", func(t *testing.T, d string) string {
			return mustSet(t, d, "codex.event_map.1.record.include.-1", "stderr")
		},
			CodeUnknownInclude, "codex.event_map[1].record.include[2]", SeverityWarning, `"stderr"`},
		{"unreachable state", func(t *testing.T, d string) string {
			d = mustSetRaw(t, d, "loop.states", `["backlog", "building", "evaluating", "orphan", "done", "stopped"]`)
			return d
		}, CodeUnreachableState, "loop.states[3]", SeverityWarning, "state orphan is unreachable"},
		{"no path to terminal", func(t *testing.T, d string) string {
			d = mustSetRaw(t, d, "loop.states", `["backlog", "building", "evaluating", "trap", "done", "stopped"]`)
			d = mustSet(t, d, "loop.events.-1", "fall")
			d = mustSetRaw(t, d, "loop.transitions.-1", `{"from": "building", "event": "fall", "to": "trap"}`)
			return mustSetRaw(t, d, "codex.event_map.-1", `{"codex_event": "Stop", "emit": "fall"}`)
		}, CodeNoPathToTerminal, "loop.states[3]", SeverityWarning, "state trap has no path to a terminal state"},
		{"event never emitted", func(t *testing.T, d string) string { return mustDelete(t, d, "codex.event_map.3") },
			CodeEventNeverEmitted, "loop.events[3]", SeverityWarning, "no codex.event_map rule emits event evaluator_failed"},
		{"exit_code on UserPromptSubmit", func(t *testing.T, d string) string { return mustSet(t, d, "codex.event_map.0.when.exit_code", 0) },
			CodeMatcherNeverMatches, "codex.event_map[0].when.exit_code", SeverityWarning, "exit_code can never match on UserPromptSubmit"},
		{"command_match on UserPromptSubmit", func(t *testing.T, d string) string {
			return mustSet(t, d, "codex.event_map.0.when.command_match", "make")
		}, CodeMatcherNeverMatches, "codex.event_map[0].when.command_match", SeverityWarning, "command_match can never match on UserPromptSubmit"},
		{"prompt_match on PostToolUse", func(t *testing.T, d string) string { return mustSet(t, d, "codex.event_map.1.when.prompt_match", "go") },
			CodeMatcherNeverMatches, "codex.event_map[1].when.prompt_match", SeverityWarning, "prompt_match can never match on PostToolUse"},
		{"tool_name on Stop", func(t *testing.T, d string) string { return mustSet(t, d, "codex.event_map.2.when.tool_name", "Bash") },
			CodeMatcherNeverMatches, "codex.event_map[2].when.tool_name", SeverityWarning, "tool_name can never match on Stop"},
		{"last_message_match on PostToolUse", func(t *testing.T, d string) string {
			return mustSet(t, d, "codex.event_map.1.when.last_message_match", "done")
		}, CodeMatcherNeverMatches, "codex.event_map[1].when.last_message_match", SeverityWarning, "only Stop and SubagentStop"},
		{"command_match with a non-Bash tool", func(t *testing.T, d string) string {
			return mustSet(t, d, "codex.event_map.1.when.tool_name", "Write")
		}, CodeMatcherNeverMatches, "codex.event_map[1].when.command_match", SeverityWarning, "with tool_name Write"},
		{"guard never satisfied", func(t *testing.T, d string) string {
			return mustSetRaw(t, d, "loop.transitions.0.guards", `["approved"]`)
		},
			CodeGuardNeverSatisfied, "loop.transitions[0].guards[0]", SeverityWarning, "guard approved of transition backlog/kickoff"},
	}
	seen := map[string]bool{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := c.edit(t, baseDSL)
			spec, ds, err := Parse("case.json", []byte(doc))
			var found *Diagnostic
			for i := range ds {
				if ds[i].Code == c.code && ds[i].Path == c.path {
					found = &ds[i]
				}
			}
			if found == nil {
				t.Fatalf("no %s at %s; got:\n%s", c.code, c.path, describeDiagnostics(ds))
			}
			if found.Severity != c.severity || !strings.Contains(found.Message, c.message) || found.Hint == "" {
				t.Errorf("diagnostic = %+v, want severity %s and a message containing %q and a hint", *found, c.severity, c.message)
			}
			if c.severity == SeverityError {
				var le *LoadError
				if spec != nil || !errors.As(err, &le) {
					t.Fatalf("an error diagnostic must fail Parse: spec=%v err=%v", spec != nil, err)
				}
				if !strings.HasPrefix(err.Error(), "case.json: ") {
					t.Errorf("error %q does not name the file", err)
				}
			} else if err != nil || spec == nil {
				t.Fatalf("a warning must not fail Parse: %v", err)
			}
		})
		seen[c.code] = true
	}
	// Every code has a case here, except the two only Load can produce.
	for _, code := range allCodes() {
		if !seen[code] && code != CodeUnreadableFile && code != CodeInvalidJSON {
			t.Errorf("diagnostic code %s has no test case", code)
		}
	}
}

func allCodes() []string {
	var out []string
	for code := range defaultHints() {
		out = append(out, code)
	}
	slices.Sort(out)
	return out
}

// TestEveryProblemAtOnce: validation does not stop at the first error.
func TestEveryProblemAtOnce(t *testing.T) {
	doc := mustSet(t, baseDSL, "loop.transitions.3.to", "x")
	doc = mustSet(t, doc, "codex.event_map.1.when.command_match", "(?=x)")
	doc = mustSet(t, doc, "simulation.budget.max_turns", "ten")
	doc = mustSet(t, doc, "codex.event_map.0.codex_event", "Nope")
	_, ds, err := Parse("many.json", []byte(doc))
	for _, want := range [][2]string{
		{CodeUnknownState, "loop.transitions[3].to"},
		{CodeBadRegex, "codex.event_map[1].when.command_match"},
		{CodeBadType, "simulation.budget.max_turns"},
		{CodeUnknownCodexEvent, "codex.event_map[0].codex_event"},
	} {
		if !hasDiag(ds, want[0], want[1]) {
			t.Errorf("missing %s at %s in:\n%s", want[0], want[1], describeDiagnostics(ds))
		}
	}
	want := "many.json: loop.transitions[3].to: transition references unknown state: x (and 3 more errors)"
	if err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant    %s", err, want)
	}
}

func TestLoadFileErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.json")
	_, ds, err := Load(missing)
	if err == nil || !hasDiag(ds, CodeUnreadableFile, "") || !strings.Contains(err.Error(), missing+": cannot read DSL file") {
		t.Errorf("missing file: err=%v diags=%v", err, ds)
	}

	broken := filepath.Join(dir, "broken.json")
	if err := os.WriteFile(broken, []byte("{\n  \"loop\": {\n    \"id\": \"x\",\n  }\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, ds, err = Load(broken)
	if err == nil || !hasDiag(ds, CodeInvalidJSON, "") || !strings.Contains(err.Error(), broken+": invalid JSON at line 4, column 3") {
		t.Errorf("broken JSON: err=%v", err)
	}

	arr := filepath.Join(dir, "array.json")
	if err := os.WriteFile(arr, []byte(`[1]`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err = Load(arr); err == nil || !strings.Contains(err.Error(), "top-level DSL document must be an object (got array)") {
		t.Errorf("array document: err=%v", err)
	}

	good := filepath.Join(dir, "good.json")
	if err := os.WriteFile(good, []byte(baseDSL), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, _, err := Load(good)
	if err != nil || spec.Path != good {
		t.Errorf("Load(good) = %v, %v", spec, err)
	}
}

// TestNoCascade: a broken states list is reported once, not as an "unknown state"
// for every reference to it.
func TestNoCascade(t *testing.T) {
	doc := mustSet(t, baseDSL, "loop.states", "backlog")
	_, ds, _ := Parse("x.json", []byte(doc))
	if len(ds.Errors()) != 1 || !hasDiag(ds, CodeBadType, "loop.states") {
		t.Errorf("want exactly one bad_type at loop.states, got:\n%s", describeDiagnostics(ds))
	}
}

func TestDiagnosticJSON(t *testing.T) {
	b, err := json.Marshal(Diagnostic{Code: "c", Severity: "error", Path: "p", Message: "m", Hint: "h"})
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"code":"c","severity":"error","path":"p","message":"m","hint":"h"}` {
		t.Errorf("JSON = %s", b)
	}
}

func TestDefinitionFromJSON(t *testing.T) {
	d, err := DefinitionFromJSON([]byte(`{"id": "x", "initial_state": "a", "states": ["a", "done"], "events": ["go"],
		"transitions": [{"from": "a", "event": "go", "to": "done"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if d.StopState != "" || !slices.Equal(d.TerminalStates, []string{"done"}) {
		t.Errorf("definition = %+v", d)
	}
	_, err = DefinitionFromJSON([]byte(`{"id": "x", "initial_state": "a", "states": ["a", "done"], "events": [],
		"transitions": [{"from": "a", "event": "go", "to": "done"}]}`))
	if err == nil || err.Error() != "transitions[0].event: transition references unknown event: go" {
		t.Errorf("err = %v", err)
	}
}

func TestChildPathQuotesOddKeys(t *testing.T) {
	if got := child("simulation.agent_steps", "my state"); got != `simulation.agent_steps["my state"]` {
		t.Errorf("child = %s", got)
	}
	if got := child("", "loop"); got != "loop" {
		t.Errorf("child = %s", got)
	}
}

// describeDiagnostics renders diagnostics one per line for test failures.
func describeDiagnostics(ds Diagnostics) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "%s %s %s\n", d.Severity, d.Code, d.String())
	}
	return b.String()
}

// An explicit max_stop_blocks: 0 means never capped; an absent key keeps the
// default cap.
func TestParseMaxStopBlocksZeroMeansNever(t *testing.T) {
	spec, ds, err := Parse("zero.json", []byte(mustSet(t, baseDSL, "loop.max_stop_blocks", 0)))
	if err != nil || len(ds) != 0 {
		t.Fatalf("Parse: %v\n%s", err, describeDiagnostics(ds))
	}
	if d := spec.Definition; d.MaxStopBlocks != 0 || d.StopCapped() {
		t.Errorf("max_stop_blocks 0: MaxStopBlocks=%d capped=%v, want 0 and never capped", d.MaxStopBlocks, d.StopCapped())
	}
	spec, _, err = Parse("absent.json", []byte(baseDSL))
	if err != nil {
		t.Fatal(err)
	}
	if d := spec.Definition; d.MaxStopBlocks != DefaultMaxStopBlocks || !d.StopCapped() {
		t.Errorf("absent max_stop_blocks: MaxStopBlocks=%d capped=%v, want the default cap", d.MaxStopBlocks, d.StopCapped())
	}
}

// TestUnknownNamesSuggestTheClosest: a typo in a state or event name gets a
// "did you mean" hint; a name far from every declared one keeps the plain hint.
func TestUnknownNamesSuggestTheClosest(t *testing.T) {
	doc := mustSet(t, baseDSL, "loop.transitions.3.to", "buildng")
	doc = mustSet(t, doc, "loop.transitions.1.event", "zzzzzzzz")
	_, ds, err := Parse("case.json", []byte(doc))
	if err == nil {
		t.Fatal("unknown names must fail Parse")
	}
	hints := map[string]string{}
	for _, d := range ds {
		hints[d.Path] = d.Hint
	}
	if h := hints["loop.transitions[3].to"]; !strings.HasPrefix(h, "did you mean building? otherwise declare the state") {
		t.Errorf("typo hint = %q", h)
	}
	if h := hints["loop.transitions[1].event"]; h != defaultHints()[CodeUnknownEvent] {
		t.Errorf("far name hint = %q, want the default", h)
	}
}

// The hand-written matchers agree with the regexps they replace.
func TestIdentAndIntLiteralMatchers(t *testing.T) {
	ident := regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$-]*$`)
	intLit := regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)
	for _, s := range []string{"", "a", "A9", "_x-y", "$", "9a", "-a", "a b", "é", "x.y", "0", "-0", "01", "-", "10", "-12", "1e3", "3.0", "--1", "a-"} {
		if got, want := isIdent(s), ident.MatchString(s); got != want {
			t.Errorf("isIdent(%q) = %v, want %v", s, got, want)
		}
		if got, want := isIntLiteral(s), intLit.MatchString(s); got != want {
			t.Errorf("isIntLiteral(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestDuplicateKeyLargeObject: an object past smallObject keys is looked up
// by a map; a repeated key there still warns, keeps its first position and
// takes its last value, as in a small object.
func TestDuplicateKeyLargeObject(t *testing.T) {
	var extra strings.Builder
	for i := range 2 * smallObject {
		fmt.Fprintf(&extra, `"x_%d": %d, `, i, i)
	}
	doc := strings.Replace(baseDSL, `"id": "delivery",`, `"id": "first", `+extra.String()+`"id": "delivery",`, 1)
	spec, ds, err := Parse("case.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if spec.Definition.ID != "delivery" {
		t.Errorf("id = %q, want the last value", spec.Definition.ID)
	}
	n := 0
	for _, d := range ds {
		if d.Code == CodeDuplicateKey {
			n++
			if d.Path != "loop.id" {
				t.Errorf("duplicate key at %s, want loop.id", d.Path)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d duplicate-key warnings, want 1:\n%s", n, describeDiagnostics(ds))
	}
	trusted, err := ParseTrusted("case.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if trusted.Definition.ID != "delivery" || len(trusted.Definition.Raw) != len(spec.Definition.Raw) {
		t.Errorf("ParseTrusted: id %q, %d raw keys (want %d)", trusted.Definition.ID, len(trusted.Definition.Raw), len(spec.Definition.Raw))
	}
}
