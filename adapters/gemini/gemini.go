// Package gemini is the Gemini CLI adapter: it decodes the JSON Gemini CLI
// 0.61 writes to a command hook's stdin into a loop.HookEvent, and encodes a
// loop.Decision into exactly the output Gemini CLI honours. What "honours"
// means was measured with the real binary (testdata/payloads, from
// ../shared/harness/gemini; docs/gemini.md); the adapter never decides policy.
package gemini

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/diag/jsonkind"
	"github.com/hook-loop/hook-loop/loop"
)

// Name is the adapter's short name, as recorded in HookEvent.Harness.
const Name = "gemini"

// Gemini CLI's own event names.
const (
	NativeSessionStart = "SessionStart"
	NativeBeforeAgent  = "BeforeAgent"
	NativeBeforeTool   = "BeforeTool"
	NativeAfterTool    = "AfterTool"
	NativeAfterAgent   = "AfterAgent"
	NativePreCompress  = "PreCompress"
	NativeSessionEnd   = "SessionEnd"
)

// nativeToCanonical maps every Gemini CLI event hook-loop handles to its
// canonical name. BeforeModel, AfterModel, BeforeToolSelection and
// Notification carry nothing a loop acts on (and BeforeModel/AfterModel carry
// the whole conversation on every model call): install does not register them.
var nativeToCanonical = harness.Table{
	{NativeSessionStart, loop.EventSessionStart},
	{NativeBeforeAgent, loop.EventUserPromptSubmit},
	{NativeBeforeTool, loop.EventPreToolUse},
	{NativeAfterTool, loop.EventPostToolUse},
	{NativeAfterAgent, loop.EventStop},
	{NativePreCompress, loop.EventPreCompact},
	{NativeSessionEnd, loop.EventSessionEnd},
}

// NativeEvents lists the Gemini CLI events hook-loop handles, in lifecycle
// order. Install registers a hook for each of them.
var NativeEvents = []string{
	NativeSessionStart, NativeBeforeAgent, NativeBeforeTool, NativeAfterTool,
	NativeAfterAgent, NativePreCompress, NativeSessionEnd,
}

// IsToolEvent reports whether a native event carries tool_name (and so takes a
// matcher in settings.json).
func IsToolEvent(native string) bool { return native == NativeBeforeTool || native == NativeAfterTool }

// StopMark starts every refused stop's reason. Gemini CLI sends the reason of
// a denied AfterAgent back to the model as a new prompt and fires BeforeAgent
// for it (payloads/006-BeforeAgent.json): that prompt is hook-loop's own
// words, not the person's, and must neither match prompt rules nor read as a
// new turn (which would record the refused stop as forced). Only the person
// and Gemini CLI write prompts, never the agent, so the mark cannot be forged
// by the gated agent.
const StopMark = "[hook-loop] "

// EventContinuation is the canonical-less name of that BeforeAgent: no DSL
// rule can name it (event_map takes canonical events only), so the engine
// records it and allows it.
const EventContinuation = "BeforeAgent (hook-loop's refused stop)"

// toolNames maps Gemini CLI's built-in tools to the canonical names loops
// use; other tools keep their own name.
var toolNames = harness.Table{
	{"run_shell_command", "Bash"},
	{"write_file", "Write"},
	{"replace", "Edit"},
	{"read_file", "Read"},
}

// CanonicalTool returns the canonical name of a Gemini CLI tool.
func CanonicalTool(name string) string {
	if c, ok := toolNames.Lookup(name); ok {
		return c
	}
	return name
}

// Adapter implements harness.Adapter for Gemini CLI.
type Adapter struct{}

// New returns the Gemini CLI adapter.
func New() Adapter { return Adapter{} }

// Harness returns "gemini".
func (Adapter) Harness() string { return Name }

var _ harness.EventNamer = Adapter{}

// CanonicalEvent implements harness.EventNamer: a fail_closed loop must know
// that an undecodable BeforeTool is a tool request and AfterAgent a stop.
func (Adapter) CanonicalEvent(native string) (string, bool) {
	c, ok := nativeToCanonical.Lookup(native)
	return c, ok
}

// Decode turns a Gemini CLI hook's stdin into a canonical event. event is the
// --event flag; when empty, the payload's hook_event_name names the event.
func (Adapter) Decode(event string, input []byte) (loop.HookEvent, error) {
	root, trimmed, native, err := harness.HookObject(input, event, "Gemini CLI", NativeBeforeTool)
	if err != nil {
		return loop.HookEvent{}, err
	}
	canonical, ok := nativeToCanonical.Lookup(native)
	if !ok {
		return loop.HookEvent{}, fmt.Errorf("unsupported Gemini CLI event %q: expected one of %s", native, strings.Join(NativeEvents, ", "))
	}
	ev := loop.HookEvent{Harness: Name, Name: canonical, NativeName: native, Raw: json.RawMessage(trimmed), Model: harness.Model(root)}
	var tool string
	for _, f := range []struct {
		path string
		dst  *string
	}{
		{"session_id", &ev.SessionID},
		{"cwd", &ev.Cwd},
		{"transcript_path", &ev.TranscriptPath},
		{"tool_name", &tool},
		{"prompt", &ev.Prompt},
	} {
		if *f.dst, err = str(root, f.path); err != nil {
			return loop.HookEvent{}, err
		}
	}
	// Source carries the one "why" string each lifecycle event has
	// (SessionStart's source, PreCompress's trigger, SessionEnd's reason), and
	// AfterAgent says whether a stop hook already refused this turn.
	if err := harness.LifecycleFields(root, &ev); err != nil {
		return loop.HookEvent{}, err
	}
	switch native {
	case NativeBeforeAgent:
		if strings.HasPrefix(ev.Prompt, StopMark) {
			ev.Name = EventContinuation
		}
	case NativeAfterAgent:
		// The agent's words of this turn: AfterAgent's prompt is the person's.
		if ev.LastAssistantMessage, err = str(root, "prompt_response"); err != nil {
			return loop.HookEvent{}, err
		}
		ev.Prompt = ""
	case NativeBeforeTool, NativeAfterTool:
		if tool == "" {
			return loop.HookEvent{}, fmt.Errorf("$.tool_name is missing: expected the tool's name for %s", native)
		}
		ev.ToolName = CanonicalTool(tool)
		ti := root.Get("tool_input")
		if ti.Exists() && !ti.IsObject() {
			return loop.HookEvent{}, fmt.Errorf("$.tool_input is %s: expected an object", jsonkind.Of(ti))
		}
		if ti.Exists() {
			if err := harness.CheckToolInput("$.tool_input", ti); err != nil {
				return loop.HookEvent{}, err
			}
			ev.ToolInput = json.RawMessage(ti.Raw)
		}
		var odd []string
		// Every tool's command is judged as the shell would run it (an MCP
		// tool's, one this adapter does not know yet), in the directory
		// run_shell_command's dir_path names: relative paths in the command
		// are the shell's from there.
		mcp := strings.HasPrefix(tool, "mcp_")
		var m harness.MCPArgs
		if mcp {
			// Gemini CLI names MCP tools mcp_<server>_<tool>: what they
			// change is unknown, so their path arguments are judged as
			// writes, but for the folders they work in (harness.ReadMCP).
			m = harness.ReadMCP(tool, ti)
			ev.Command, odd = m.Command, m.Odd
		} else {
			ev.Command, odd = harness.Command(ti.Get("command"))
		}
		if ev.ToolName == "Bash" {
			// run_shell_command runs it in dir_path; an MCP server may read
			// a key of that name otherwise, or not at all.
			ev.CommandDir = harness.CommandDir(ti, "dir_path")
		}
		ev.TargetPaths = targetPaths(ev.ToolName, ti, ev.Cwd, append(odd, m.Writes...), native == NativeBeforeTool)
		if ev.Command == "" && len(ev.TargetPaths) == 0 {
			// Read as the file tools read them: a leading "@" may be
			// dropped (resolveDefensiveToolPath).
			for _, p := range harness.ReadPaths(ti) {
				ev.ReadPaths = append(ev.ReadPaths, spellings(p)...)
			}
		}
		if mcp {
			// The folders an MCP call works in are read, its command run
			// there; what it may change is in TargetPaths.
			ev.ReadPaths = append(ev.ReadPaths, m.Reads...)
			if ev.Command != "" {
				ev.CommandDir = m.Dir
			}
		}
		if native == NativeAfterTool {
			ev.Result = result(ev.ToolName, root.Get("tool_response"))
		}
	}
	return ev, nil
}

// targetPaths are the files a tool call writes: write_file and replace name
// it in file_path (each spelling Gemini CLI may take it for, and for
// replace, before it runs, the files its search for a missing relative path
// may find: the walk guards the call and is not repeated after it), an MCP
// tool in its path-like arguments. What a shell command writes is the
// engine's to read from the command. odd are the strings of fields that did
// not decode as expected, and the paths an MCP tool may change, each judged
// as a path written.
func targetPaths(tool string, input gjson.Result, cwd string, odd []string, before bool) []string {
	var out []string
	add := func(p string) {
		if p = harness.TargetPath(cwd, p); p == "" {
			return
		}
		out = append(out, p)
	}
	for _, s := range odd {
		add(s)
	}
	if tool == "Write" || tool == "Edit" {
		fp := input.Get("file_path")
		if fp.Type == gjson.String {
			for _, s := range spellings(fp.Str) {
				add(s)
				if before && tool == "Edit" && !filepath.IsAbs(fp.Str) {
					// replace looks a relative path that names no file up
					// in the workspace by its base name.
					for _, c := range corrected(cwd, s) {
						add(c)
					}
				}
			}
		} else {
			for _, s := range harness.Strings(fp) {
				add(s)
			}
		}
	}
	return out
}

// trailerKeys are the lines Gemini CLI's shell tool appends after a
// command's output ("Output: ...", then "Error: ...", "Exit Code: N" only when
// non-zero, "Signal: S", "Background PIDs: ...", "Process Group PGID: N"), in
// its order: read from the end (harness.Trailer), so the command's own output
// cannot speak for Gemini CLI.
var trailerKeys = []string{"Exit Code", "Signal", "Background PIDs", "Process Group PGID"}

// result builds an AfterTool's result. tool_response is {llmContent,
// returnDisplay, error?}. A shell command's exit code is in llmContent only
// when it is not zero ("Exit Code: 2", payloads/fail-005-AfterTool.json), so
// a command that ran to its end with no such line exited 0; one cancelled,
// moved to the background or killed by a signal, or one whose tool_response
// carries an error and no exit code, has none (nil).
// Other tools have no exit status: a tool that reports no error is a known 0,
// like Claude Code's file tools; one with an error is unknown.
func result(tool string, resp gjson.Result) *loop.ToolResult {
	text := contentText(resp.Get("llmContent"))
	r := &loop.ToolResult{Output: text, Stdout: text}
	failed := resp.Get("error").Exists() && resp.Get("error").Type != gjson.Null
	if tool != "Bash" {
		if !failed {
			r.ExitCode = loop.IntPtr(0)
		}
		return r
	}
	body := strings.TrimSpace(text)
	body = strings.TrimSuffix(strings.TrimPrefix(body, "<untrusted_context>"), "</untrusted_context>")
	body = strings.TrimSpace(body)
	if !strings.HasPrefix(body, "Output: ") && body != "Output:" {
		// "Command was cancelled ...", "Command moved to background ...".
		return r
	}
	trailer, lines := harness.Trailer(strings.Split(body, "\n"), trailerKeys...)
	if _, ok := trailer["Signal"]; ok {
		return r
	}
	var exit *int
	if v, ok := trailer["Exit Code"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil {
			return r
		}
		exit = loop.IntPtr(n)
	}
	if exit == nil {
		if failed {
			// The tool failed without an exit status (a spawn error).
			return r
		}
		exit = loop.IntPtr(0)
	}
	out := strings.TrimPrefix(strings.Join(lines, "\n"), "Output:")
	out = strings.TrimPrefix(out, " ")
	if out == "(empty)" {
		out = ""
	}
	r.Output, r.Stdout, r.ExitCode = out, out, exit
	return r
}

// contentText flattens llmContent: a string, a part ({text}) or a list of
// parts.
func contentText(v gjson.Result) string {
	switch {
	case v.Type == gjson.String:
		return v.Str
	case v.IsObject():
		return v.Get("text").String()
	case v.IsArray():
		var parts []string
		v.ForEach(func(_, p gjson.Result) bool {
			if t := contentText(p); t != "" {
				parts = append(parts, t)
			}
			return true
		})
		return strings.Join(parts, "\n")
	}
	return ""
}

// str reads an optional string field (harness.OptionalString).
func str(obj gjson.Result, path string) (string, error) { return harness.OptionalString(obj, path) }
