// Package pi adapts the pi coding agent (@mariozechner/pi-coding-agent) to
// hook-loop. pi has no hook-command config: the generated extension
// (templates/pi/hook_loop.ts.tmpl) spawns `hook-loop pi-hook --event NAME` and
// writes one wrapper object on stdin:
//
//	{"event": "tool_call", "session_id": "...", "cwd": "/abs", "has_ui": false,
//	 "stop_hook_active": false, "payload": <the object pi passed to pi.on(NAME)>}
//
// The session id and cwd come from the handler's ctx because no pi payload
// carries them. The answer is one small JSON object the extension acts on.
package pi

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/diag/jsonkind"

	"github.com/hook-loop/hook-loop/loop"
	"github.com/tidwall/gjson"
)

// Native pi event names the extension sends.
const (
	NativeSessionStart    = "session_start"
	NativeInput           = "input"
	NativeToolCall        = "tool_call"
	NativeToolResult      = "tool_result"
	NativeMessageEnd      = "message_end"
	NativeSessionShutdown = "session_shutdown"
)

// nativeToCanonical maps the pi events hook-loop listens to onto canonical names.
// The final assistant message_end is the stop request: pi has no pre-stop hook,
// and it is the last moment a follow-up still reaches the same run in -p mode.
var nativeToCanonical = harness.Table{
	{NativeSessionStart, loop.EventSessionStart},
	{NativeInput, loop.EventUserPromptSubmit},
	{NativeToolCall, loop.EventPreToolUse},
	{NativeToolResult, loop.EventPostToolUse},
	{NativeMessageEnd, loop.EventStop},
	{NativeSessionShutdown, loop.EventSessionEnd},
}

// NativeEvents lists the pi events the adapter decodes, in lifecycle order.
var NativeEvents = []string{
	NativeSessionStart, NativeInput, NativeToolCall, NativeToolResult,
	NativeMessageEnd, NativeSessionShutdown,
}

// toolNames maps pi's built-in tool names to the canonical ones DSL rules use.
var toolNames = harness.Table{
	{"bash", "Bash"},
	{"write", "Write"},
	{"edit", "Edit"},
	{"read", "Read"},
	{"grep", "Grep"},
	{"find", "Glob"},
	{"ls", "LS"},
}

// CanonicalTool returns the canonical name of a pi tool; unknown (custom) tools
// keep their own name.
func CanonicalTool(name string) string {
	if c, ok := toolNames.Lookup(name); ok {
		return c
	}
	return name
}

// pi's bash tool merges stdout and stderr and, on a non-zero exit, ends the text
// with this line (captured: "out\nerr\n\n\nCommand exited with code 3").
// exitTrailer and unicodeSpaces are compiled on first use: every hook-loop
// process links this package, and only pi-hook needs them.
var exitTrailer = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|\n)Command exited with code (-?\d+)\s*$`)
})

// Adapter implements harness.Adapter for pi.
type Adapter struct{}

var _ harness.Adapter = Adapter{}

// New returns the pi adapter.
func New() Adapter { return Adapter{} }

// Harness implements harness.Adapter.
func (Adapter) Harness() string { return "pi" }

// Decode implements harness.Adapter. event is the --event flag: a native pi
// event name; when empty the wrapper's "event" field is used.
func (Adapter) Decode(event string, input []byte) (loop.HookEvent, error) {
	if !gjson.ValidBytes(input) {
		return loop.HookEvent{}, fmt.Errorf("expected one JSON object on stdin")
	}
	root := gjson.ParseBytes(input)
	if !root.IsObject() {
		return loop.HookEvent{}, fmt.Errorf("expected a JSON object, got %s", jsonkind.Of(root))
	}
	native := event
	if w := root.Get("event"); w.Exists() {
		if w.Type != gjson.String {
			return loop.HookEvent{}, fmt.Errorf("$.event: expected a string, got %s", jsonkind.Of(w))
		}
		if native == "" {
			native = w.String()
		} else if w.String() != native {
			return loop.HookEvent{}, fmt.Errorf("$.event: %q does not match --event %q", w.String(), native)
		}
	}
	if native == "" {
		return loop.HookEvent{}, fmt.Errorf("$.event: missing; pass --event NAME")
	}
	name, ok := nativeToCanonical.Lookup(native)
	if !ok {
		return loop.HookEvent{}, fmt.Errorf("event %q: expected one of %s", native, strings.Join(NativeEvents, ", "))
	}
	sid, err := str(root, "session_id", true)
	if err != nil {
		return loop.HookEvent{}, err
	}
	cwd, err := str(root, "cwd", true)
	if err != nil {
		return loop.HookEvent{}, err
	}
	if !filepath.IsAbs(cwd) {
		return loop.HookEvent{}, fmt.Errorf("$.cwd: expected an absolute path, got %q", cwd)
	}
	payload := root.Get("payload")
	if !payload.IsObject() {
		return loop.HookEvent{}, fmt.Errorf("$.payload: expected the %s event object, got %s", native, jsonkind.Of(payload))
	}
	ev := loop.HookEvent{
		Harness:    "pi",
		Name:       name,
		NativeName: native,
		SessionID:  sid,
		Cwd:        filepath.Clean(cwd),
		Raw:        json.RawMessage(append([]byte(nil), input...)),
		Model:      harness.Model(root),
	}
	switch native {
	case NativeSessionStart:
		ev.Source = payload.Get("reason").String()
	case NativeSessionShutdown:
		ev.Source = payload.Get("reason").String()
	case NativeInput:
		text := payload.Get("text")
		if text.Type != gjson.String {
			return loop.HookEvent{}, fmt.Errorf("$.payload.text: expected the prompt string, got %s", jsonkind.Of(text))
		}
		ev.Prompt = text.String()
	case NativeToolCall, NativeToolResult:
		if err := decodeTool(&ev, payload); err != nil {
			return loop.HookEvent{}, err
		}
		if native == NativeToolResult {
			res, err := decodeResult(ev.ToolName, payload)
			if err != nil {
				return loop.HookEvent{}, err
			}
			ev.Result = res
		}
	case NativeMessageEnd:
		msg := payload.Get("message")
		if !msg.IsObject() {
			return loop.HookEvent{}, fmt.Errorf("$.payload.message: expected the message object, got %s", jsonkind.Of(msg))
		}
		if role := msg.Get("role").String(); role != "assistant" {
			return loop.HookEvent{}, fmt.Errorf("$.payload.message.role: expected \"assistant\" (only the final assistant message is a stop), got %q", role)
		}
		ev.LastAssistantMessage = textOf(msg.Get("content"))
		ev.StopHookActive = root.Get("stop_hook_active").Bool()
	}
	return ev, nil
}

func decodeTool(ev *loop.HookEvent, payload gjson.Result) error {
	tool, err := str(payload, "toolName", true)
	if err != nil {
		return prefix("payload.", err)
	}
	ev.ToolName = CanonicalTool(tool)
	ev.ToolUseID = payload.Get("toolCallId").String()
	in := payload.Get("input")
	if in.Exists() && !in.IsObject() {
		return fmt.Errorf("$.payload.input: expected the tool's argument object, got %s", jsonkind.Of(in))
	}
	if in.Exists() {
		if err := harness.CheckToolInput("$.payload.input", in); err != nil {
			return err
		}
		ev.ToolInput = json.RawMessage(in.Raw)
	}
	switch tool {
	case "bash":
		// A command that is not a string is judged on what it holds
		// (harness.Command), never refused as undecodable and let through.
		var odd []string
		ev.Command, odd = harness.Command(in.Get("command"))
		for _, s := range odd {
			ev.TargetPaths = append(ev.TargetPaths, resolve(ev.Cwd, s))
		}
	case "write", "edit":
		p := in.Get("path")
		if p.Type != gjson.String || p.String() == "" {
			return fmt.Errorf("$.payload.input.path: expected the %s target path, got %s", tool, jsonkind.Of(p))
		}
		ev.TargetPaths = []string{resolve(ev.Cwd, p.String())}
	case "read", "grep", "find", "ls":
		// pi's read tools resolve their paths as write and edit do (a
		// leading "@" dropped, unicode spaces, ~): the guard must see the
		// file pi reads, not "@/.../keys/k.key" under the project.
		for _, p := range harness.ReadPaths(in) {
			ev.ReadPaths = append(ev.ReadPaths, resolve(ev.Cwd, p))
		}
	default:
		// An extension's tool: judged on what its input holds, its command
		// run in its working folder. Its paths are resolved as pi's own
		// tools resolve theirs, the extension's own reading unknown.
		m := harness.ReadMCP(tool, in)
		ev.Command = m.Command
		if ev.Command != "" {
			ev.CommandDir = m.Dir
		}
		for _, p := range append(m.Odd, m.Writes...) {
			ev.TargetPaths = append(ev.TargetPaths, resolve(ev.Cwd, p))
		}
		for _, p := range append(harness.ReadPaths(in), m.Reads...) {
			ev.ReadPaths = append(ev.ReadPaths, resolve(ev.Cwd, p))
		}
	}
	return nil
}

// unicodeSpaces are the characters pi's path-utils turns into plain spaces.
var unicodeSpaces = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("[\u00A0\u2000-\u200A\u202F\u205F\u3000]")
})

// resolve makes a tool path absolute exactly as pi's resolveToCwd does, so that a
// protected-path check sees the file pi will write: a leading "@" is dropped,
// unicode spaces become spaces, "~" is the home directory (pi's, which the hook
// process inherits), and a relative path is relative to pi's cwd.
func resolve(cwd, p string) string {
	p = unicodeSpaces().ReplaceAllString(strings.TrimPrefix(p, "@"), " ")
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = home + p[1:]
		}
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(cwd, p)
}

func decodeResult(tool string, payload gjson.Result) (*loop.ToolResult, error) {
	content := payload.Get("content")
	if content.Exists() && !content.IsArray() {
		return nil, fmt.Errorf("$.payload.content: expected an array of content parts, got %s", jsonkind.Of(content))
	}
	isErr := payload.Get("isError")
	if isErr.Exists() && !(isErr.Type == gjson.True || isErr.Type == gjson.False) {
		return nil, fmt.Errorf("$.payload.isError: expected a boolean, got %s", jsonkind.Of(isErr))
	}
	out := textOf(content)
	res := &loop.ToolResult{Output: out, Stdout: out}
	res.ExitCode = exitCode(tool, isErr.Bool(), out)
	return res, nil
}

// exitCode reads the exit status pi implies. A bash call that succeeded has no
// trailer and isError false: 0. A failing one carries the trailer. A bash call
// that failed without the trailer (killed, timed out, threw) stays unknown, and
// so does any failed non-bash tool; a non-bash tool that succeeded counts as 0,
// like Claude Code's PostToolUse for its file tools.
func exitCode(tool string, isError bool, text string) *int {
	if tool == "Bash" {
		if m := exitTrailer().FindStringSubmatch(text); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil {
				return loop.IntPtr(n)
			}
		}
		if !isError {
			return loop.IntPtr(0)
		}
		return nil
	}
	if !isError {
		return loop.IntPtr(0)
	}
	return nil
}

// textOf joins the text parts of a pi content array (or returns a plain string).
func textOf(content gjson.Result) string {
	if content.Type == gjson.String {
		return content.String()
	}
	var parts []string
	content.ForEach(func(_, part gjson.Result) bool {
		if part.Get("type").String() == "text" {
			parts = append(parts, part.Get("text").String())
		}
		return true
	})
	return strings.Join(parts, "\n")
}

func str(obj gjson.Result, key string, required bool) (string, error) {
	v := obj.Get(key)
	if !v.Exists() {
		if required {
			return "", fmt.Errorf("$.%s: missing, expected a string", key)
		}
		return "", nil
	}
	if v.Type != gjson.String {
		return "", fmt.Errorf("$.%s: expected a string, got %s", key, jsonkind.Of(v))
	}
	if required && v.String() == "" {
		return "", fmt.Errorf("$.%s: expected a non-empty string", key)
	}
	return v.String(), nil
}

func prefix(p string, err error) error {
	return fmt.Errorf("%s", strings.Replace(err.Error(), "$.", "$."+p, 1))
}

// Reply is what pi-hook prints; the extension acts on it. Field names are part of
// the contract with templates/pi/hook_loop.ts.tmpl.
type Reply struct {
	// Context is the before_agent_start message or the tool_result note.
	harness.PluginAnswer
	// StopBlocks and MaxStopBlocks let the extension bound its own follow-ups.
	StopBlocks    int `json:"stopBlocks"`
	MaxStopBlocks int `json:"maxStopBlocks,omitempty"`
}

// Exit statuses of pi-hook: 0 lets pi proceed, ExitBlock refuses; both print a
// Reply. Any other status (or no Reply) is a failed hook to the extension.
const (
	ExitProceed = 0
	ExitBlock   = 2
)

// Encode implements harness.Adapter.
func (Adapter) Encode(ev loop.HookEvent, d loop.Decision) harness.Output {
	action := d.Action
	if action == "" {
		action = loop.Allow
	}
	r := Reply{
		PluginAnswer:  harness.NewPluginAnswer(action, d),
		StopBlocks:    d.StopBlocks,
		MaxStopBlocks: d.MaxStopBlocks,
	}
	if action == loop.Block && r.Reason == "" {
		// pi shows an empty reason to the model as an empty tool result; say who refused.
		r.Reason = "hook-loop refused this " + what(ev)
	}
	out, _ := json.Marshal(r)
	code := ExitProceed
	if action == loop.Block {
		code = ExitBlock
	}
	return harness.Output{Stdout: append(out, '\n'), Exit: code}
}

func what(ev loop.HookEvent) string {
	switch ev.Name {
	case loop.EventPreToolUse:
		return "tool call"
	case loop.EventStop:
		return "stop: the loop is not finished"
	case loop.EventUserPromptSubmit:
		return "prompt"
	}
	return "event"
}
