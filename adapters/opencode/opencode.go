// Package opencode adapts opencode (1.18) to hook-loop. opencode has no hook
// command; the generated plugin (templates/opencode) runs `hook-loop opencode-hook
// --event NAME` with one of the payloads below on stdin and turns the one-line
// JSON answer (see Answer) into opencode's own means: a throw in
// tool.execute.before, text appended to a tool's output, or a follow-up prompt
// when a stop is refused.
//
// Plugin payloads (every one carries "hook", "directory" and "worktree"):
//
//	tool.execute.before         {input: {tool, sessionID, callID}, output: {args}, parentSessionID?}
//	tool.execute.after          {input: {tool, sessionID, callID, args}, output: {title, output, metadata: {exit, ...}}}
//	chat.message                {input: {sessionID}, output: {message: {id, role, sessionID}, parts: [{type: "text", text}]}}
//	session.created             {event: {type, properties: {info: {id, ...}}}}
//	experimental.text.complete  {sessionID, lastAssistantMessage, stopHookActive, input: {sessionID, messageID, partID}}
//	session.idle                {sessionID, lastAssistantMessage, stopHookActive, messageID, event}
//
// The flat payloads of the Python prototype's opencode plugin ({session_id,
// cwd, tool, input, output: {exit_code, stdout}}, message.updated with text;
// see docs/dsl-origin.md) decode too, so old installs keep working until they
// are re-installed.
package opencode

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/diag/jsonkind"

	"github.com/hook-loop/hook-loop/adapters/patch"
	"github.com/hook-loop/hook-loop/loop"
	"github.com/tidwall/gjson"
)

// nativeToCanonical maps the plugin's --event names (and those of the Python
// prototype hook-loop stays compatible with, see docs/dsl-origin.md) to the
// canonical vocabulary.
var nativeToCanonical = harness.Table{
	{"tool.execute.before", loop.EventPreToolUse},
	{"tool.execute.after", loop.EventPostToolUse},
	{"chat.message", loop.EventUserPromptSubmit},
	{"message.updated", loop.EventUserPromptSubmit}, // the Python prototype's name
	{"session.created", loop.EventSessionStart},
	{"experimental.text.complete", loop.EventStop},
	{"session.idle", loop.EventStop},
	{"permission.ask", loop.EventPermissionRequest},
	{"experimental.session.compacting", loop.EventPreCompact},
	{"session.compacted", loop.EventPostCompact},
	{"session.deleted", loop.EventSessionEnd},
	{"experimental.compaction.autocontinue", loop.EventPostCompact},
}

// NativeEvents lists the opencode hook and bus events the adapter decodes.
var NativeEvents = []string{
	"tool.execute.before", "tool.execute.after", "chat.message", "message.updated",
	"session.created", "experimental.text.complete", "session.idle", "permission.ask",
	"experimental.session.compacting", "session.compacted", "session.deleted",
	"experimental.compaction.autocontinue",
}

// Canonical returns the canonical event for an opencode hook or bus event name;
// canonical names pass through. ok is false for an unknown name.
func Canonical(native string) (string, bool) {
	if c, ok := nativeToCanonical.Lookup(native); ok {
		return c, true
	}
	if loop.IsCanonicalEvent(native) {
		return native, true
	}
	return "", false
}

// toolNames maps opencode's own tool ids, as opencode spells them, to the
// canonical (Claude/Codex) names that event_map rules use.
var toolNames = harness.Table{
	{"bash", "Bash"},
	{"write", "Write"},
	{"edit", "Edit"},
	{"multiedit", "MultiEdit"},
	{"read", "Read"},
	{"grep", "Grep"},
	{"glob", "Glob"},
	{"list", "LS"},
	{"todowrite", "TodoWrite"},
	{"todoread", "TodoRead"},
	{"webfetch", "WebFetch"},
	{"websearch", "WebSearch"},
	{"task", "Task"},
	{"apply_patch", "apply_patch"},
	{"patch", "apply_patch"},
	{"question", "Question"},
	{"skill", "Skill"},
	{"lsp", "lsp"},
	{"codesearch", "codesearch"},
	{"invalid", "invalid"},
}

// prototypeTools are the prototype's spellings of opencode's tools: named
// as toolNames names them, but no opencode tool's id, so a call by one is an
// MCP server's (server todo, tool write) and judged as such.
var prototypeTools = harness.Table{
	{"multi_edit", "MultiEdit"},
	{"todo_write", "TodoWrite"},
	{"web_fetch", "WebFetch"},
}

// CanonicalTool maps an opencode tool id (bash, write, apply_patch, ...) to its
// canonical name. Unknown ids (MCP tools, custom tools) keep their spelling, so a
// rule can still name them exactly.
func CanonicalTool(name string) string {
	if c, ok := toolNames.Lookup(toolKey(name)); ok {
		return c
	}
	if c, ok := prototypeTools.Lookup(toolKey(name)); ok {
		return c
	}
	return strings.TrimSpace(name)
}

// builtin says id is one of opencode's own tools, exactly as opencode spells
// it: any other id, a prototype's spelling included, is an MCP server's or a
// plugin's.
func builtin(id string) bool {
	_, ok := toolNames.Lookup(id)
	return ok
}

// toolKey is a tool id as toolNames spells it.
func toolKey(name string) string {
	return strings.ToLower(strings.ReplaceAll(strings.TrimSpace(name), "-", "_"))
}

// Adapter is the opencode adapter.
type Adapter struct{}

// New returns the adapter.
func New() Adapter { return Adapter{} }

var _ harness.Adapter = Adapter{}

// Harness implements harness.Adapter.
func (Adapter) Harness() string { return "opencode" }

// Decode implements harness.Adapter. event is --event; when empty the payload's
// "hook" names it.
func (Adapter) Decode(event string, input []byte) (loop.HookEvent, error) {
	ev := loop.HookEvent{Harness: "opencode"}
	trimmed := strings.TrimSpace(string(input))
	if trimmed == "" {
		return ev, fmt.Errorf("$: empty input, expected the plugin's JSON object on stdin")
	}
	if !json.Valid([]byte(trimmed)) {
		return ev, fmt.Errorf("$: invalid JSON, expected an object")
	}
	root := gjson.Parse(trimmed)
	if !root.IsObject() {
		return ev, fmt.Errorf("$: expected an object, got %s", jsonkind.Of(root))
	}
	ev.Raw = json.RawMessage(trimmed)
	ev.Model = harness.Model(root)

	native := event
	if native == "" {
		h := root.Get("hook")
		if h.Type != gjson.String || h.String() == "" {
			return ev, fmt.Errorf("$.hook: expected the opencode hook name (or pass --event)")
		}
		native = h.String()
	}
	name, ok := Canonical(native)
	if !ok {
		return ev, fmt.Errorf("--event %q: unknown opencode event (expected one of tool.execute.before, tool.execute.after, chat.message, session.created, experimental.text.complete, session.idle)", native)
	}
	ev.Name, ev.NativeName = name, native

	// A subagent's (task tool's) calls belong to its parent session's loop.
	ev.SessionID = first(root, "parentSessionID", "sessionID", "input.sessionID", "event.properties.sessionID",
		"event.properties.info.id", "output.message.sessionID", "session_id", "session.id")
	ev.Cwd = first(root, "directory", "cwd", "workspace", "event.properties.info.directory")
	ev.TurnID = first(root, "input.messageID", "messageID", "output.message.id", "run_id", "message_id", "event_id", "turn_id", "message.id")

	switch name {
	case loop.EventPreToolUse, loop.EventPostToolUse, loop.EventPermissionRequest:
		if err := decodeTool(root, &ev); err != nil {
			return ev, err
		}
	case loop.EventUserPromptSubmit:
		ev.Prompt = promptOf(root)
	case loop.EventStop:
		ev.LastAssistantMessage = first(root, "lastAssistantMessage", "last_assistant_message", "output.text", "text")
		ev.StopHookActive = root.Get("stopHookActive").Bool() || root.Get("stop_hook_active").Bool()
	case loop.EventSessionStart:
		ev.Source = "startup"
	}
	return ev, nil
}

// newShape reports whether the payload is the generated plugin's {input, output}
// form rather than the Python prototype's flat one.
func newShape(root gjson.Result) bool {
	return root.Get("input").IsObject() && (root.Get("input.tool").Type == gjson.String || root.Get("input.sessionID").Exists())
}

func decodeTool(root gjson.Result, ev *loop.HookEvent) error {
	var tool, args gjson.Result
	if newShape(root) {
		tool = root.Get("input.tool")
		args = root.Get("output.args")
		if !args.IsObject() {
			args = root.Get("input.args")
		}
		ev.ToolUseID = root.Get("input.callID").String()
	} else {
		for _, p := range []string{"tool_name", "tool", "tool.name", "tool.id"} {
			if v := root.Get(p); v.Type == gjson.String {
				tool = v
				break
			}
		}
		for _, p := range []string{"tool_input", "input", "arguments", "tool.input", "tool.arguments"} {
			if v := root.Get(p); v.IsObject() {
				args = v
				break
			}
		}
		ev.ToolUseID = first(root, "callID", "call_id", "tool_use_id")
	}
	if tool.Type != gjson.String || tool.String() == "" {
		return fmt.Errorf("$.input.tool: expected the opencode tool id (a string such as \"bash\"), got %s", jsonkind.Of(tool))
	}
	ev.ToolName = CanonicalTool(tool.String())
	if args.IsObject() {
		if err := harness.CheckToolInput("$.output.args", args); err != nil {
			return err
		}
		ev.ToolInput = json.RawMessage(args.Raw)
	} else {
		ev.ToolInput = json.RawMessage("{}")
	}
	var odd []string
	dir := ev.Cwd
	if !builtin(tool.Str) || tool.Str == "apply_patch" {
		// An MCP server's tool (server_tool) or a plugin's: judged on what
		// its input holds, its command run in its working folder. So is
		// apply_patch, whose id an MCP server's tool shares when the server
		// is apply and the tool patch; its patch is judged as well.
		m := harness.ReadMCP(tool.Str, args)
		ev.Command = m.Command
		if ev.Command != "" {
			ev.CommandDir = m.Dir
		}
		ev.TargetPaths = targetPaths(ev.ToolName, args, dir, append(m.Odd, m.Writes...))
		ev.ReadPaths = append(harness.ReadPaths(args), m.Reads...)
		if ev.Name == loop.EventPostToolUse {
			ev.Result = result(root)
		}
		return nil
	}
	if ev.ToolName == "Bash" {
		ev.Command, odd = harness.Command(args.Get("command"))
		// bash runs its command in workdir (its prompt tells the model to
		// use it instead of cd): the command's relative paths are from there,
		// where the guard reads them: relative paths are left to it, which
		// judges the command's directory once for every harness.
		if ev.CommandDir = harness.CommandDir(args, "workdir"); ev.CommandDir != "" {
			dir = ""
		}
	}
	ev.TargetPaths = targetPaths(ev.ToolName, args, dir, odd)
	if ev.Command == "" && len(ev.TargetPaths) == 0 {
		ev.ReadPaths = harness.ReadPaths(args)
	}
	if ev.Name == loop.EventPostToolUse {
		ev.Result = result(root)
	}
	return nil
}

// targetPaths lists the files a call writes, resolved against the session's
// directory (opencode passes filePath exactly as the model wrote it).
//
// odd are the strings of a command that is not one (harness.Command): each
// is judged as a path written.
func targetPaths(tool string, args gjson.Result, cwd string, odd []string) []string {
	raw := append([]string(nil), odd...)
	switch tool {
	case "Write", "Edit", "MultiEdit":
		for _, k := range []string{"filePath", "file_path", "path"} {
			if v := args.Get(k); v.Type == gjson.String && v.String() != "" {
				raw = append(raw, v.String())
				break
			}
		}
	case "apply_patch":
		for _, k := range []string{"patchText", "patch", "input"} {
			if v := args.Get(k); v.Type == gjson.String {
				raw = append(raw, patch.Paths(v.String())...)
				break
			}
		}
	case "Bash":
		if c := args.Get("command"); c.Type == gjson.String && strings.Contains(c.Str, "*** Begin Patch") {
			raw = append(raw, patch.Paths(c.Str)...)
		}
	}
	var out []string
	for _, p := range raw {
		if !filepath.IsAbs(p) && cwd != "" {
			p = filepath.Join(cwd, p)
		}
		out = append(out, filepath.Clean(p))
	}
	return out
}

// result reads a finished call: opencode puts bash's exit status only at
// output.metadata.exit (a failing command still has status "completed").
func result(root gjson.Result) *loop.ToolResult {
	r := &loop.ToolResult{}
	out := root.Get("output")
	switch {
	case out.Type == gjson.String:
		r.Output = out.String()
	case out.Get("output").Type == gjson.String:
		r.Output = out.Get("output").String()
	case out.Get("stdout").Exists():
		r.Output = out.Get("stdout").String()
	case out.Get("metadata.output").Type == gjson.String:
		r.Output = out.Get("metadata.output").String()
	}
	if v := out.Get("stdout"); v.Exists() {
		r.Stdout = v.String()
	}
	if v := out.Get("stderr"); v.Exists() {
		r.Stderr = v.String()
	}
	for _, p := range []string{"metadata.exit", "exit_code", "exitCode", "exit"} {
		if v := out.Get(p); v.Type == gjson.Number {
			r.ExitCode = loop.IntPtr(int(v.Int()))
			break
		}
	}
	return r
}

// promptOf is the person's text: the plugin's text parts, or the Python prototype's
// prompt/text/content keys.
func promptOf(root gjson.Result) string {
	if parts := root.Get("output.parts"); parts.IsArray() {
		var texts []string
		for _, p := range parts.Array() {
			if p.Get("type").String() == "text" && !p.Get("synthetic").Bool() {
				texts = append(texts, p.Get("text").String())
			}
		}
		return strings.Join(texts, "\n")
	}
	return first(root, "prompt", "text", "content", "message.text", "message.content")
}

// first returns the first of paths that holds a non-empty string.
func first(root gjson.Result, paths ...string) string {
	for _, p := range paths {
		if v := root.Get(p); v.Type == gjson.String && v.String() != "" {
			return v.String()
		}
	}
	return ""
}
