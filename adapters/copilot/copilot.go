// Package copilot is the GitHub Copilot CLI adapter: it decodes the JSON
// Copilot CLI 1.0 writes to a command hook's stdin into a loop.HookEvent, and
// encodes a loop.Decision into the output Copilot honours. What it honours
// was measured with the real binary (../shared/harness/copilot/payloads):
// preToolUse answers {"permissionDecision":"deny",...}, agentStop answers
// {"decision":"block","reason":...} and the agent goes on with the reason as
// its next prompt. Payloads do not name their event: install passes --event.
package copilot

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/adapters/patch"
	"github.com/hook-loop/hook-loop/diag/jsonkind"
	"github.com/hook-loop/hook-loop/loop"
	"github.com/tidwall/gjson"
)

// Name is the adapter's short name, as recorded in HookEvent.Harness.
const Name = "copilot"

// ProjectDirVar is what Copilot CLI exports to every hook: the project
// directory (captured: COPILOT_PROJECT_DIR, besides COPILOT_HOOK_DIR).
const ProjectDirVar = "COPILOT_PROJECT_DIR"

// Copilot CLI's hook events hook-loop handles, in lifecycle order. errorOccurred
// carries nothing a loop acts on; install does not register it.
const (
	EventSessionStart = "sessionStart"
	EventPrompt       = "userPromptSubmitted"
	EventPreToolUse   = "preToolUse"
	EventPostToolUse  = "postToolUse"
	EventAgentStop    = "agentStop"
	EventSubagentStop = "subagentStop"
	EventPreCompact   = "preCompact"
	EventSessionEnd   = "sessionEnd"
)

// NativeEvents are the events install registers.
var NativeEvents = []string{EventSessionStart, EventPrompt, EventPreToolUse, EventPostToolUse,
	EventAgentStop, EventSubagentStop, EventPreCompact, EventSessionEnd}

var nativeToCanonical = harness.Table{
	{EventSessionStart, loop.EventSessionStart},
	{EventPrompt, loop.EventUserPromptSubmit},
	{EventPreToolUse, loop.EventPreToolUse},
	{EventPostToolUse, loop.EventPostToolUse},
	{EventAgentStop, loop.EventStop},
	{EventSubagentStop, loop.EventSubagentStop},
	{EventPreCompact, loop.EventPreCompact},
	{EventSessionEnd, loop.EventSessionEnd},
}

// tools maps Copilot's tool names to the canonical ones; create writes a
// file (path, file_text), edit and its alias str_replace change one (path,
// old_str, new_str).
var tools = harness.Table{{"bash", "Bash"}, {"create", "Write"}, {"edit", "Edit"}, {"str_replace", "Edit"}, {"view", "Read"}}

// Adapter implements harness.Adapter for Copilot CLI.
type Adapter struct {
	// TranscriptWait bounds the wait for the session transcript on agentStop
	// (0: TranscriptWait).
	TranscriptWait time.Duration
}

// New returns the Copilot CLI adapter.
func New() Adapter { return Adapter{} }

func (a Adapter) wait() time.Duration {
	if a.TranscriptWait > 0 {
		return a.TranscriptWait
	}
	return TranscriptWait
}

// Harness returns "copilot".
func (Adapter) Harness() string { return Name }

// CanonicalEvent maps a native event name (for input that cannot be decoded).
func (Adapter) CanonicalEvent(native string) (string, bool) {
	c, ok := nativeToCanonical.Lookup(native)
	return c, ok
}

// Decode turns a Copilot CLI hook's stdin into a canonical event. event is
// the --event flag: Copilot's payloads do not name their event.
func (a Adapter) Decode(event string, input []byte) (loop.HookEvent, error) {
	trimmed := strings.TrimSpace(string(input))
	switch {
	case trimmed == "":
		return loop.HookEvent{}, fmt.Errorf("stdin is empty: expected the JSON object Copilot CLI writes to a hook")
	case !gjson.Valid(trimmed):
		return loop.HookEvent{}, fmt.Errorf("stdin is not valid JSON: expected one JSON object")
	}
	root := gjson.Parse(trimmed)
	if !root.IsObject() {
		return loop.HookEvent{}, fmt.Errorf("$ is %s: expected a JSON object", jsonkind.Of(root))
	}
	if event == "" {
		return loop.HookEvent{}, fmt.Errorf("no --event given: Copilot CLI's payload does not name its event (expected one of %s)", strings.Join(NativeEvents, ", "))
	}
	canonical, ok := nativeToCanonical.Lookup(event)
	if !ok {
		return loop.HookEvent{}, fmt.Errorf("unsupported Copilot CLI event %q: expected one of %s", event, strings.Join(NativeEvents, ", "))
	}
	ev := loop.HookEvent{Harness: Name, Name: canonical, NativeName: event, Raw: json.RawMessage(trimmed), Model: harness.Model(root)}
	var err error
	for _, f := range []struct {
		path string
		dst  *string
	}{
		{"sessionId", &ev.SessionID}, {"cwd", &ev.Cwd}, {"transcriptPath", &ev.TranscriptPath},
		{"toolName", &ev.ToolName}, {"prompt", &ev.Prompt},
	} {
		if *f.dst, err = harness.OptionalString(root, f.path); err != nil {
			return loop.HookEvent{}, err
		}
	}
	if err := harness.LifecycleFields(root, &ev); err != nil {
		return loop.HookEvent{}, err
	}
	isTool := event == EventPreToolUse || event == EventPostToolUse
	if isTool && ev.ToolName == "" {
		return loop.HookEvent{}, fmt.Errorf("$.toolName is missing: expected the tool's name for %s", event)
	}
	native := ev.ToolName
	if c, ok := tools.Lookup(ev.ToolName); ok {
		ev.ToolName = c
	}
	if args := root.Get("toolArgs"); args.Exists() && args.Type != gjson.Null {
		var freeform string
		if args.Type == gjson.String {
			// Nested in a string, the text escaped the stdin's nesting
			// check, and gjson.Valid recurses once per level.
			if err := harness.CheckNesting("$.toolArgs (its JSON text)", args.Str, harness.MaxNesting); err != nil {
				return loop.HookEvent{}, &harness.ShapeError{Err: err}
			}
		}
		if args.Type == gjson.String && gjson.Valid(args.Str) {
			// Some releases send the arguments as JSON text: the model's own,
			// which may name a key twice. Copilot CLI's JSON.parse keeps the
			// last; so does encoding/json, where gjson would read the first.
			var err error
			if args, err = lastWins(args.Str); err != nil {
				return loop.HookEvent{}, &harness.ShapeError{Err: fmt.Errorf("$.toolArgs: its JSON text cannot be read (%v): expected an object hook-loop can read key by key", err)}
			}
		} else if args.Type == gjson.String {
			// A freeform tool's input (apply_patch's patch text) is the
			// string itself: judged on the files it names, never refused
			// as a shape hook-loop cannot read, which would let it through.
			freeform = args.Str
			raw, _ := json.Marshal(map[string]string{"input": freeform})
			args = gjson.ParseBytes(raw)
		}
		if !args.IsObject() {
			return loop.HookEvent{}, fmt.Errorf("$.toolArgs is %s: expected an object", jsonkind.Of(args))
		}
		if err := harness.CheckToolInput("$.toolArgs", args); err != nil {
			return loop.HookEvent{}, err
		}
		ev.ToolInput = json.RawMessage(args.Raw)
		var odd []string
		var m harness.MCPArgs
		ev.Command, odd = harness.Command(args.Get("command"))
		switch {
		case !builtin(native):
			// An MCP server's tool (server-tool) or one Copilot CLI added
			// since: judged on what its input holds.
			m = harness.ReadMCP(native, args)
			ev.Command, odd = m.Command, append(m.Odd, m.Writes...)
			if ev.Command != "" {
				ev.CommandDir = m.Dir
			}
		case ev.ToolName == "Bash":
		case writesShell(ev.ToolName):
			// What write_bash types into a running shell is a command line
			// of that shell, but of a shell whose directory and program
			// (bash, or python, or a shell started in .hook-loop) no hook
			// showed: it cannot be judged as if it ran in the session's cwd.
			ev.Command, odd = harness.Command(args.Get("input"))
			ev.Unseen = ev.ToolName + " types into a shell started earlier, whose directory and program hook-loop cannot know (run the command in a fresh " + strings.TrimPrefix(ev.ToolName, "write_") + " call instead)"
		default:
			ev.Command = ""
		}
		ev.TargetPaths = targetPaths(ev.ToolName, args, ev.Cwd, odd)
		if freeform != "" {
			ev.TargetPaths = append(ev.TargetPaths, patch.Targets(freeform, ev.Cwd)...)
		}
		if ev.Command == "" && len(ev.TargetPaths) == 0 {
			// view and its kin: hook-loop's secrets are refused to them as to cat.
			ev.ReadPaths = harness.ReadPaths(args)
		}
		ev.ReadPaths = append(ev.ReadPaths, m.Reads...)
	}
	switch event {
	case EventPostToolUse:
		ev.Result = result(ev.ToolName, root.Get("toolResult"))
	case EventAgentStop:
		// For last_message_match rules: agentStop does not carry the
		// message; the session's transcript does.
		ev.LastAssistantMessage = lastAssistantMessage(ev.TranscriptPath, root.Get("timestamp").Int(), a.wait())
	}
	return ev, nil
}

// exitRE is the end of a bash tool's text for the model (captured:
// "<shellId: 0 completed with exit code 0>"); the exit code is nowhere else.
var exitRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`<shellId: [^>]*completed with exit code (-?\d+)>\s*$`)
})

// result builds a postToolUse's result. A bash call's exit code is the one
// its text reports (unknown when it reports none: still running, detached,
// stopped); any other tool whose resultType is success is a known 0.
func result(tool string, tr gjson.Result) *loop.ToolResult {
	text := tr.Get("textResultForLlm").String()
	r := &loop.ToolResult{Output: text}
	if tool == "Bash" {
		if m := exitRE().FindStringSubmatch(text); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil {
				r.ExitCode = &n
			}
		}
		return r
	}
	if tr.Get("resultType").String() == "success" {
		r.ExitCode = loop.IntPtr(0)
	}
	return r
}

// builtin reports whether tool is one of Copilot CLI's own, which its
// adapter reads by name: every other is an MCP server's (named
// server-tool) or one added since, judged on what its input holds.
func builtin(tool string) bool {
	switch tool {
	case "bash", "write_bash", "read_bash", "stop_bash", "list_bash",
		"write_powershell", "read_powershell", "stop_powershell", "list_powershell",
		"view", "create", "edit", "str_replace", "str_replace_editor", "apply_patch",
		"glob", "grep", "rg", "web_fetch", "web_search", "report_intent", "update_todo", "think",
		"task", "read_agent", "list_agents", "skill", "fetch_copilot_cli_documentation":
		return true
	}
	return false
}

// writesShell reports whether tool types its input into a running shell
// session (bash's or powershell's, started earlier with async or a shellId).
func writesShell(tool string) bool { return tool == "write_bash" || tool == "write_powershell" }

// targetPaths are the files a tool call writes: create's and edit's path,
// str_replace_editor's unless it only views, the files an apply_patch patch
// names in its headers (the patch is its input or patch argument), and the
// strings of fields of an unexpected shape.
func targetPaths(tool string, args gjson.Result, cwd string, odd []string) []string {
	var out []string
	switch tool {
	case "Write", "Edit":
		odd = append(odd, args.Get("path").String())
	case "str_replace_editor":
		if args.Get("command").String() != "view" {
			odd = append(odd, args.Get("path").String())
		}
	case "apply_patch":
		for _, k := range []string{"input", "patch"} {
			if v := args.Get(k); v.Type == gjson.String {
				odd = append(odd, patch.Paths(v.Str)...)
			}
		}
	}
	for _, p := range odd {
		if p = harness.TargetPath(cwd, p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// lastWins is the JSON text as JavaScript's JSON.parse reads it: of a key
// named twice in an object, the last value. Text that is not an object is
// parsed as it is. Text encoding/json cannot read is an error: never read by gjson, which keeps
// the first of a key named twice where Copilot CLI keeps the last.
func lastWins(text string) (gjson.Result, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return gjson.Result{}, err
	}
	if _, ok := v.(map[string]any); !ok {
		return gjson.Parse(text), nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return gjson.Result{}, err
	}
	return gjson.ParseBytes(raw), nil
}
