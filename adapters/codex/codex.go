// Package codex adapts OpenAI Codex CLI (0.169) command hooks: it decodes the
// hook's stdin into a loop.HookEvent and encodes a loop.Decision into the only
// output shapes Codex honours. What Codex accepts was measured with the real
// binary (harness/codex/payloads in the shared folder); anything else fails open.
package codex

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/diag/jsonkind"

	"github.com/hook-loop/hook-loop/adapters/patch"
	"github.com/hook-loop/hook-loop/loop"
	"github.com/tidwall/gjson"
)

// Native event names of Codex 0.169 that have no canonical counterpart.
const (
	NativeSubagentStart = "SubagentStart"
	NativeInterrupt     = "Interrupt"
)

// NativeEvents lists the 12 hook events Codex 0.169 fires.
var NativeEvents = []string{
	"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest",
	"PostToolUse", "Stop", "SubagentStart", "SubagentStop", "PreCompact",
	"PostCompact", "Interrupt", "SessionEnd",
}

// canonicalName maps a native event to the canonical vocabulary, which is
// Codex's own for ten of its events. SubagentStart and Interrupt have no
// canonical counterpart and no sensible nearest one (SubagentStart is not a
// prompt, and Interrupt is always followed by SessionEnd, which would then count
// twice), so they keep their native name: no event_map rule can name them and
// the engine only records them.
func canonicalName(native string) string { return native }

// Adapter is the Codex hook adapter.
type Adapter struct {
	// RolloutTail bounds how much of the rollout file's end is read to find a
	// tool call's exit code.
	RolloutTail int64
	// RolloutWait bounds the total time spent waiting for the rollout entry,
	// which Codex may flush a few milliseconds after starting the hook.
	RolloutWait time.Duration
	// sleep is time.Sleep, replaceable in tests.
	sleep func(time.Duration)
}

// New returns an adapter with the production bounds.
func New() *Adapter {
	return &Adapter{RolloutTail: 256 << 10, RolloutWait: 150 * time.Millisecond, sleep: time.Sleep}
}

var _ harness.Adapter = (*Adapter)(nil)

// Harness implements harness.Adapter.
func (a *Adapter) Harness() string { return "codex" }

// Decode implements harness.Adapter. event is the --event flag; when empty the
// payload's hook_event_name is used.
func (a *Adapter) Decode(event string, input []byte) (loop.HookEvent, error) {
	var ev loop.HookEvent
	trimmed := strings.TrimSpace(string(input))
	if trimmed == "" {
		return ev, fmt.Errorf("stdin is empty: expected a JSON object on stdin")
	}
	if !json.Valid([]byte(trimmed)) {
		return ev, fmt.Errorf("$: invalid JSON, expected an object")
	}
	root := gjson.Parse(trimmed)
	if !root.IsObject() {
		return ev, fmt.Errorf("$: expected an object, got %s", jsonkind.Of(root))
	}
	native := event
	if native == "" {
		v, err := str(root, "hook_event_name")
		if err != nil {
			return ev, err
		}
		native = v
	}
	if native == "" {
		return ev, fmt.Errorf("$.hook_event_name: missing, and no --event given; expected one of %s", strings.Join(NativeEvents, ", "))
	}
	if !isNative(native) {
		return ev, fmt.Errorf("unknown event %q: expected one of %s", native, strings.Join(NativeEvents, ", "))
	}
	ev.Harness = "codex"
	ev.NativeName = native
	ev.Name = canonicalName(native)
	ev.Raw = json.RawMessage(trimmed)
	ev.Model = harness.Model(root)

	var err error
	get := func(dst *string, keys ...string) {
		for _, k := range keys {
			if err != nil {
				return
			}
			var v string
			v, err = str(root, k)
			if v != "" {
				*dst = v
				return
			}
		}
	}
	get(&ev.SessionID, "session_id", "thread_id")
	get(&ev.TurnID, "turn_id", "run_id")
	get(&ev.Cwd, "cwd")
	get(&ev.TranscriptPath, "transcript_path")
	get(&ev.Prompt, "prompt", "user_prompt")
	get(&ev.LastAssistantMessage, "last_assistant_message")
	get(&ev.Source, "source")
	get(&ev.ToolUseID, "tool_use_id", "call_id")
	var tool string
	get(&tool, "tool_name", "tool")
	if err != nil {
		return ev, err
	}
	if v := root.Get("stop_hook_active"); v.Exists() && v.Type != gjson.Null {
		if !v.IsBool() {
			return ev, fmt.Errorf("$.stop_hook_active: expected a boolean, got %s", jsonkind.Of(v))
		}
		ev.StopHookActive = v.Bool()
	}
	ev.ToolName = canonicalTool(tool)

	input2 := root.Get("tool_input")
	inputKey := "tool_input"
	if !input2.Exists() || input2.Type == gjson.Null {
		input2, inputKey = root.Get("input"), "input"
	}
	if input2.Exists() && input2.Type != gjson.Null {
		if !input2.IsObject() {
			return ev, fmt.Errorf("$.%s: expected an object, got %s", inputKey, jsonkind.Of(input2))
		}
		if err := harness.CheckToolInput("$."+inputKey, input2); err != nil {
			return ev, err
		}
		ev.ToolInput = json.RawMessage(input2.Raw)
	}
	cmdText, odd := commandOf(input2)
	dir := ev.Cwd
	if ev.ToolName == "Bash" {
		ev.Command = cmdText
		if native == loop.EventPreToolUse && ev.ToolUseID != "" && ev.TranscriptPath != "" {
			// Codex runs the command in the call's workdir, which the hook's
			// tool_input leaves out; the model's call, persisted in the
			// rollout before it runs, has it.
			args, found, opened := a.rolloutCallArgs(ev.TranscriptPath, ev.ToolUseID, len(input2.Raw))
			switch {
			case found:
				// Decoded as Codex decodes them: escaped keys unescaped,
				// names matched exactly, not searched as text.
				var m map[string]json.RawMessage
				if json.Unmarshal([]byte(args), &m) != nil {
					ev.Unseen = "its arguments in the session rollout could not be read"
				} else {
					ev.Unseen = callUnseen(m)
				}
				if w := callArg(m, "workdir"); w != "" {
					dir = workdir(ev.Cwd, w)
					ev.CommandDir = dir
				}
			case opened:
				// The call is not where Codex writes it before its hooks:
				// too long for the tail read, or not written as expected.
				ev.Unseen = "its workdir and terminal could not be read from the session rollout"
			}
		}
	}
	switch ev.ToolName {
	case "apply_patch", "Bash":
		// Bash too: `apply_patch <<'EOF'` through the shell is applied as a
		// patch by Codex, and the hook sees only the command text.
		ev.TargetPaths = patch.Targets(cmdText, dir)
	default:
		mcp := strings.HasPrefix(ev.ToolName, "mcp__")
		for _, k := range []string{"file_path", "filePath", "path"} {
			if p := input2.Get(k); !mcp && p.Type == gjson.String && p.Str != "" {
				ev.TargetPaths = toolPaths(ev.Cwd, p.Str)
				break
			}
		}
		if mcp {
			// An MCP tool's effect is unknown: its path arguments are judged
			// as writes (the folders it works in, and those of a tool named
			// for reading, as reads) and its command as a command run in its
			// working folder, as for Claude Code's.
			m := harness.ReadMCP(ev.ToolName, input2)
			ev.Command = m.Command
			odd = append(odd, m.Odd...)
			for _, p := range m.Writes {
				ev.TargetPaths = append(ev.TargetPaths, toolPaths(ev.Cwd, p)...)
			}
			ev.ReadPaths = append(ev.ReadPaths, m.Reads...)
			if ev.Command != "" {
				ev.CommandDir = m.Dir
			}
		}
	}
	ev.TargetPaths = append(ev.TargetPaths, patch.Resolve(ev.Cwd, odd)...)

	if ev.Name == loop.EventPostToolUse {
		ev.Result = a.result(root, &ev)
	}
	return ev, nil
}

// result builds the tool result of a PostToolUse event. Codex sends the merged
// output as a plain string without the exit code; that is recovered from the
// session rollout. The Python prototype's object form ({exit_code, stdout, stderr})
// is honoured for hooks fed by hand or by older tooling.
func (a *Adapter) result(root gjson.Result, ev *loop.HookEvent) *loop.ToolResult {
	resp := root.Get("tool_response")
	for _, k := range []string{"tool_output", "output"} {
		if resp.Exists() && resp.Type != gjson.Null {
			break
		}
		resp = root.Get(k)
	}
	res := &loop.ToolResult{}
	switch {
	case resp.Type == gjson.String:
		res.Output = resp.Str
	case resp.IsObject():
		res.Stdout = resp.Get("stdout").String()
		res.Stderr = resp.Get("stderr").String()
		res.Output = resp.Get("output").String()
		if res.Output == "" {
			res.Output = strings.TrimSuffix(res.Stdout+"\n"+res.Stderr, "\n")
			if res.Stderr == "" {
				res.Output = res.Stdout
			}
		}
		for _, k := range []string{"exit_code", "exitCode", "exit"} {
			if v := resp.Get(k); v.Type == gjson.Number {
				res.ExitCode = loop.IntPtr(int(v.Int()))
				break
			}
		}
	case resp.Exists() && resp.Type != gjson.Null:
		res.Output = resp.Raw
	}
	if res.ExitCode == nil {
		if code, ok := patchExitCode(res.Output); ok && ev.ToolName == "apply_patch" {
			res.ExitCode = &code
		}
	}
	// Only shell commands have an exit code; other tools (spawn_agent, MCP
	// tools) must not pay for a rollout read.
	if res.ExitCode == nil && ev.ToolName == "Bash" && ev.ToolUseID != "" && ev.TranscriptPath != "" {
		res.ExitCode = a.rolloutExitCode(ev.TranscriptPath, ev.ToolUseID)
	}
	return res
}

// patchExitCode reads "Exit code: N" from the first line of an apply_patch
// tool_response (the only tool whose response string starts with it).
func patchExitCode(out string) (int, bool) {
	line, _, _ := strings.Cut(out, "\n")
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), "Exit code: ")
	if !ok {
		return 0, false
	}
	var n int
	if _, err := fmt.Sscanf(rest, "%d", &n); err != nil {
		return 0, false
	}
	return n, true
}

// odd are the strings of a command of any other shape (harness.Command),
// judged as paths written.
func commandOf(input gjson.Result) (cmd string, odd []string) {
	for _, k := range []string{"command", "cmd"} {
		v := input.Get(k)
		if !v.Exists() || v.Type == gjson.Null {
			continue
		}
		if parts := v.Array(); v.IsArray() && len(parts) >= 3 && posixShell(parts[0].Str) && (parts[1].Str == "-lc" || parts[1].Str == "-c") && parts[len(parts)-1].Type == gjson.String {
			// The legacy shell tool: ["bash", "-lc", "<script>"]. Another
			// program's -c text (python3 -c) is no script: the argv is
			// judged whole.
			return parts[len(parts)-1].Str, nil
		}
		return harness.Command(v)
	}
	return "", nil
}

// canonicalTool maps Codex's tool names to the canonical ones. Codex already
// reports its shell tool as Bash; the others are its internal names, seen in
// rollouts and in hand-written payloads.
func canonicalTool(name string) string {
	switch name {
	case "shell", "exec_command", "shell_command", "local_shell", "bash":
		return "Bash"
	}
	return name
}

func isNative(name string) bool {
	for _, n := range NativeEvents {
		if n == name {
			return true
		}
	}
	return false
}

func str(root gjson.Result, key string) (string, error) {
	v := root.Get(gjson.Escape(key))
	if !v.Exists() || v.Type == gjson.Null {
		return "", nil
	}
	if v.Type != gjson.String {
		return "", fmt.Errorf("$.%s: expected a string, got %s", key, jsonkind.Of(v))
	}
	return v.Str, nil
}

// workdir is the folder Codex runs a call whose workdir is w in: w joined to
// cwd as written, then as the system resolves it (Codex changes into it
// with a system call, so "lnk/.." is the folder above the link's target,
// not cwd); as written, cleaned, when it does not exist.
func workdir(cwd, w string) string {
	if !filepath.IsAbs(w) && cwd != "" {
		w = strings.TrimSuffix(cwd, string(filepath.Separator)) + string(filepath.Separator) + w
	}
	if real, err := filepath.EvalSymlinks(w); err == nil {
		return real
	}
	return filepath.Clean(w)
}

// toolPaths are the paths a tool's path argument p is judged as: "~/x" left
// for the engine to expand to the agent's home (harness.TargetPath), where
// joining it to cwd would judge a harmless "cwd/~/x"; any other as
// patch.Resolve reads it.
func toolPaths(cwd, p string) []string {
	if t := harness.TargetPath(cwd, p); strings.HasPrefix(t, "~/") {
		return []string{t}
	}
	return patch.Resolve(cwd, []string{p})
}

// callArg is the string argument key of the model's call arguments m, ""
// when it has none.
func callArg(m map[string]json.RawMessage, key string) string {
	var v string
	if json.Unmarshal(m[key], &v) != nil {
		return ""
	}
	return v
}

// posixShellName says name is a shell whose -c text the guard reads as it
// reads shell: exec_command's shell argument may name any program, which
// Codex runs as `<shell> -c <cmd>` (python3 -c runs Python). A switch, not a
// map: a package-level map is built at every hook's start.
func posixShellName(name string) bool {
	switch name {
	case "sh", "bash", "dash", "zsh", "ksh", "mksh":
		return true
	}
	return false
}

// callUnseen is what the call with arguments m runs that no hook shows,
// "" when nothing: a terminal (tty), fed later by write_stdin, or a shell
// argument that is not a POSIX shell, whose command is not shell.
func callUnseen(m map[string]json.RawMessage) string {
	if raw, ok := m["tty"]; ok {
		if t := strings.TrimSpace(string(raw)); t != "false" && t != "null" {
			return "it starts a terminal session, whose input write_stdin types later"
		}
	}
	if raw, ok := m["shell"]; ok && strings.TrimSpace(string(raw)) != "null" {
		var sh string
		if json.Unmarshal(raw, &sh) != nil || !posixShell(sh) {
			return fmt.Sprintf("it runs its command with %s, not a POSIX shell, so its text is not judged as shell", raw)
		}
	}
	return ""
}

// posixShell says sh names a POSIX shell: by its name alone (looked up in
// PATH) or as a system folder's, where the agent cannot have put a program
// of that name.
func posixShell(sh string) bool {
	if !posixShellName(filepath.Base(sh)) {
		return false
	}
	if !strings.Contains(sh, "/") {
		return true
	}
	switch filepath.Dir(sh) {
	case "/bin", "/usr/bin", "/usr/local/bin", "/opt/homebrew/bin":
		return filepath.IsAbs(sh) && filepath.Clean(sh) == sh
	}
	return false
}
