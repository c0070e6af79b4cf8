// Package claude is the Claude Code adapter: it decodes the JSON Claude Code 2.1
// writes to a command hook's stdin into a loop.HookEvent, and encodes a
// loop.Decision into exactly the output Claude Code honours. What "honours" means
// was measured with the real binary (../shared/harness/claude/payloads); the
// adapter never decides policy.
package claude

import (
	"encoding/json"
	"fmt"
	"github.com/hook-loop/hook-loop/adapters/harness"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/hook-loop/hook-loop/diag/jsonkind"

	"github.com/tidwall/gjson"

	"github.com/hook-loop/hook-loop/loop"
)

// Name is the adapter's short name, as recorded in HookEvent.Harness.
const Name = "claude"

// Native event names that differ from the canonical ones, or that only Claude has.
const (
	// EventPostToolUseFailure is Claude Code's event for a tool call that failed;
	// hook-loop presents it to the loop as a PostToolUse with a non-zero exit code.
	EventPostToolUseFailure = "PostToolUseFailure"
)

// nativeToCanonical maps every Claude Code event hook-loop handles to its
// canonical name. Events Claude fires that are not here (PostToolBatch,
// MessageDisplay, Notification, SubagentStart, InstructionsLoaded, ...) carry
// nothing a loop can act on; install does not register them and Decode refuses
// them with an error naming the supported set.
var nativeToCanonical = harness.Table{
	{loop.EventSessionStart, loop.EventSessionStart},
	{loop.EventUserPromptSubmit, loop.EventUserPromptSubmit},
	{loop.EventPreToolUse, loop.EventPreToolUse},
	{loop.EventPermissionRequest, loop.EventPermissionRequest},
	{loop.EventPostToolUse, loop.EventPostToolUse},
	{EventPostToolUseFailure, loop.EventPostToolUse},
	{loop.EventStop, loop.EventStop},
	{loop.EventSubagentStop, loop.EventSubagentStop},
	{loop.EventPreCompact, loop.EventPreCompact},
	{loop.EventPostCompact, loop.EventPostCompact},
	{loop.EventSessionEnd, loop.EventSessionEnd},
}

// NativeEvents lists the Claude Code events hook-loop handles, in lifecycle order.
// Install registers a hook for each of them.
var NativeEvents = []string{
	loop.EventSessionStart, loop.EventUserPromptSubmit, loop.EventPreToolUse,
	loop.EventPermissionRequest, loop.EventPostToolUse, EventPostToolUseFailure,
	loop.EventStop, loop.EventSubagentStop, loop.EventPreCompact, loop.EventPostCompact,
	loop.EventSessionEnd,
}

// IsToolEvent reports whether a native event carries tool_name (and so takes a
// matcher in settings.json).
func IsToolEvent(native string) bool {
	switch native {
	case loop.EventPreToolUse, loop.EventPermissionRequest, loop.EventPostToolUse, EventPostToolUseFailure:
		return true
	}
	return false
}

// Dialect is what differs between Claude Code and a harness that speaks its
// hook protocol (Qwen Code: the same settings, events, payload keys and
// answers, other tool names and tool results). Such a harness's adapter is
// NewFor(its dialect): one decoder and encoder serve both.
type Dialect struct {
	// Name is the harness's short name (HookEvent.Harness), Product its name
	// in errors ("Claude Code").
	Name, Product string
	// Tool maps a native tool name to the canonical one (Bash, Write, Edit,
	// Read); nil keeps it.
	Tool func(native string) string
	// Result builds a PostToolUse's or PostToolUseFailure's result from the
	// payload, for the canonical tool; nil reads Claude Code's.
	Result func(native, tool string, root gjson.Result) *loop.ToolResult
	// DirKey is the argument in which the harness's shell tools name the
	// directory their command runs in (Qwen Code's "directory"); "" when
	// they name none (Claude Code's run in the session's directory).
	DirKey string
}

// claudeDialect is Claude Code itself.
var claudeDialect = Dialect{Name: Name, Product: "Claude Code"}

// Adapter implements harness.Adapter for Claude Code, or for a harness of
// its dialect.
type Adapter struct{ d *Dialect }

// New returns the Claude Code adapter.
func New() Adapter { return Adapter{&claudeDialect} }

// NewFor returns the adapter of a harness that speaks Claude Code's hook
// protocol in dialect d.
func NewFor(d *Dialect) Adapter { return Adapter{d} }

func (a Adapter) dialect() *Dialect {
	if a.d == nil {
		return &claudeDialect
	}
	return a.d
}

// Harness returns "claude" (or the dialect's name).
func (a Adapter) Harness() string { return a.dialect().Name }

// Decode turns a Claude Code hook's stdin into a canonical event. event is the
// --event flag; when empty, the payload's hook_event_name names the event.
func (a Adapter) Decode(event string, input []byte) (loop.HookEvent, error) {
	d := a.dialect()
	root, trimmed, native, err := harness.HookObject(input, event, d.Product, loop.EventPreToolUse)
	if err != nil {
		return loop.HookEvent{}, err
	}
	canonical, ok := nativeToCanonical.Lookup(native)
	if !ok {
		return loop.HookEvent{}, fmt.Errorf("unsupported %s event %q: expected one of %s", d.Product, native, strings.Join(NativeEvents, ", "))
	}

	ev := loop.HookEvent{
		Harness:    d.Name,
		Name:       canonical,
		NativeName: native,
		Raw:        json.RawMessage(trimmed),
		Model:      harness.Model(root),
	}
	fields := []struct {
		path string
		dst  *string
	}{
		{"session_id", &ev.SessionID},
		{"prompt_id", &ev.TurnID},
		{"cwd", &ev.Cwd},
		{"transcript_path", &ev.TranscriptPath},
		{"tool_name", &ev.ToolName},
		{"tool_use_id", &ev.ToolUseID},
		{"prompt", &ev.Prompt},
		{"last_assistant_message", &ev.LastAssistantMessage},
	}
	for _, f := range fields {
		if *f.dst, err = str(root, f.path); err != nil {
			return loop.HookEvent{}, err
		}
	}
	if d.Tool != nil && ev.ToolName != "" {
		ev.ToolName = d.Tool(ev.ToolName)
	}
	if err := harness.LifecycleFields(root, &ev); err != nil {
		return loop.HookEvent{}, err
	}

	if ti := root.Get("tool_input"); ti.Exists() {
		if !ti.IsObject() {
			return loop.HookEvent{}, fmt.Errorf("$.tool_input is %s: expected an object", kind(ti))
		}
		if err := harness.CheckToolInput("$.tool_input", ti); err != nil {
			return loop.HookEvent{}, err
		}
		ev.ToolInput = json.RawMessage(ti.Raw)
		var odd []string
		// Every tool's command is judged as the shell would run it, not only
		// Bash's: Claude Code's Monitor and Qwen Code's monitor run theirs in
		// a shell too, and a tool this adapter does not know yet may as well.
		mcp := strings.HasPrefix(ev.ToolName, "mcp__")
		var m harness.MCPArgs
		if mcp {
			m = harness.ReadMCP(ev.ToolName, ti)
			ev.Command, odd = m.Command, m.Odd
		} else {
			ev.Command, odd = harness.Command(ti.Get("command"))
		}
		// The harness's own shell tools run their command in DirKey; an MCP
		// server may read a key of that name otherwise, or not at all.
		if ev.Command != "" && d.DirKey != "" && !mcp {
			ev.CommandDir = harness.CommandDir(ti, d.DirKey)
		}
		ev.TargetPaths = targetPaths(ev.ToolName, ti, ev.Cwd, append(odd, m.Writes...))
		if ev.Command == "" && len(ev.TargetPaths) == 0 {
			ev.ReadPaths = harness.ReadPaths(ti)
		}
		if mcp {
			// The folders an MCP call works in are read, its command run
			// there; what it may change is in TargetPaths.
			ev.ReadPaths = append(ev.ReadPaths, m.Reads...)
			if ev.Command != "" {
				ev.CommandDir = m.Dir
			}
		}
	}
	if IsToolEvent(native) && ev.ToolName == "" {
		return loop.HookEvent{}, fmt.Errorf("$.tool_name is missing: expected the tool's name for %s", native)
	}

	switch {
	case d.Result != nil && (native == loop.EventPostToolUse || native == EventPostToolUseFailure):
		ev.Result = d.Result(native, ev.ToolName, root)
	case native == loop.EventPostToolUse:
		ev.Result = successResult(ev.ToolName, root)
	case native == EventPostToolUseFailure:
		ev.Result = FailureResult(ev.ToolName, root)
	}
	return ev, nil
}

// successResult builds the result of a PostToolUse. Claude Code fires PostToolUse
// only for a call that succeeded (a failed one fires PostToolUseFailure instead:
// harness/claude/payloads/experiments/toolfail.json), so the exit code is a known
// 0 — except when the Bash call was interrupted or sent to the background, where
// nothing has exited yet.
func successResult(tool string, root gjson.Result) *loop.ToolResult {
	resp := root.Get("tool_response")
	r := &loop.ToolResult{}
	switch {
	case resp.IsObject() && tool == "Bash":
		r.Stdout = resp.Get("stdout").String()
		r.Stderr = resp.Get("stderr").String()
		r.Output = joinOutput(r.Stdout, r.Stderr)
		background := resp.Get("backgroundTaskId").String() != "" ||
			root.Get("tool_input.run_in_background").Bool()
		if resp.Get("interrupted").Bool() || background {
			return r
		}
	case resp.Type == gjson.String:
		r.Output = resp.String()
	case resp.Exists():
		r.Output = resp.Raw
	}
	r.ExitCode = loop.IntPtr(0)
	return r
}

// exitCodeRE is compiled on first use: every hook-loop process links this
// package, and only claude-hook needs it.
var exitCodeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Exit code (-?\d+)\b`) })

// FailureResult builds the result of a PostToolUseFailure. Bash failures say
// "Exit code N\n<output>" in error; that N is the exit code. Every other failure
// (a Write that could not write, an interrupted or timed-out command) has no
// process exit status, so the exit code stays unknown (nil): it never matches an
// exit_code rule, neither 0 nor any other number.
func FailureResult(tool string, root gjson.Result) *loop.ToolResult {
	msg := root.Get("error").String()
	r := &loop.ToolResult{Output: msg, Stderr: msg}
	if root.Get("is_interrupt").Bool() {
		return r
	}
	if m := exitCodeRE().FindStringSubmatch(msg); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil {
			r.ExitCode = loop.IntPtr(n)
			rest := strings.TrimPrefix(strings.TrimPrefix(msg, m[0]), "\n")
			r.Output, r.Stderr = rest, rest
		}
	}
	return r
}

func joinOutput(stdout, stderr string) string {
	switch {
	case stderr == "":
		return stdout
	case stdout == "":
		return stderr
	}
	return stdout + "\n" + stderr
}

// targetPaths returns the files a tool call writes. Write/Edit/MultiEdit name it
// in file_path, NotebookEdit in notebook_path; Claude already resolves them
// against cwd, but a relative one is resolved here too. What a Bash command
// writes is the engine's to read from the command, as for every harness.
//
// odd are the strings of fields that did not decode as expected, and the
// paths an MCP tool may change (harness.ReadMCP): each is judged as a path
// written, since what such a field does is unknown.
func targetPaths(tool string, input gjson.Result, cwd string, odd []string) []string {
	var out []string
	add := func(p string) {
		if p = harness.TargetPath(cwd, p); p != "" {
			out = append(out, p)
		}
	}
	for _, s := range odd {
		add(s)
	}
	switch tool {
	case "Write", "Edit", "MultiEdit":
		add(input.Get("file_path").String())
	case "NotebookEdit":
		add(input.Get("notebook_path").String())
	}
	return out
}

// str reads an optional string field (harness.OptionalString).
func str(obj gjson.Result, path string) (string, error) { return harness.OptionalString(obj, path) }

// kind says "missing" for an absent value: Claude's errors read "$.x is missing".
func kind(v gjson.Result) string {
	if !v.Exists() {
		return "missing"
	}
	return jsonkind.Of(v)
}
