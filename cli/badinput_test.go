package cli

import (
	"bytes"
	"encoding/json"
	"github.com/hook-loop/hook-loop/eventlog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/adapters/registry"
	"github.com/hook-loop/hook-loop/cli/cmdutil"
	"github.com/hook-loop/hook-loop/gallery"
	"github.com/hook-loop/hook-loop/version"
)

// hookUnderTest describes one *-hook command: its native names for the stop,
// the pre-tool and a post-tool event, a valid payload for each, and how the
// harness reads a refusal from its answer.
type hookUnderTest struct {
	cmd             string
	stop, pre, post string
	payload         func(event, cwd string) []byte
	refused         func(out map[string]any, exit int) bool
}

func decisionBlock(out map[string]any, _ int) bool {
	if out["decision"] == "block" {
		return true
	}
	h, _ := out["hookSpecificOutput"].(map[string]any)
	if h == nil {
		return false
	}
	if h["permissionDecision"] == "deny" {
		return true
	}
	d, _ := h["decision"].(map[string]any)
	return d != nil && d["behavior"] == "deny"
}

func actionBlock(out map[string]any, exit int) bool { return out["action"] == "block" || exit == 2 }

var hooksUnderTest = []hookUnderTest{
	{
		cmd: "codex-hook", stop: "Stop", pre: "PreToolUse", post: "PostToolUse",
		payload: func(event, cwd string) []byte {
			return []byte(`{"session_id":"s1","turn_id":"t1","cwd":` + q(cwd) + `,"hook_event_name":"` + event + `","model":"m","permission_mode":"default",` +
				map[string]string{
					"Stop":        `"stop_hook_active":false,"last_assistant_message":"done"}`,
					"PreToolUse":  `"tool_name":"Bash","tool_input":{"command":"echo hi"},"tool_use_id":"c1"}`,
					"PostToolUse": `"tool_name":"Bash","tool_input":{"command":"echo hi"},"tool_response":"hi\n","tool_use_id":"c1"}`,
				}[event])
		},
		refused: decisionBlock,
	},
	{
		cmd: "claude-hook", stop: "Stop", pre: "PreToolUse", post: "PostToolUse",
		payload: func(event, cwd string) []byte {
			return []byte(`{"session_id":"s1","transcript_path":"","cwd":` + q(cwd) + `,"hook_event_name":"` + event + `",` +
				map[string]string{
					"Stop":        `"stop_hook_active":false,"last_assistant_message":"done"}`,
					"PreToolUse":  `"tool_name":"Bash","tool_input":{"command":"echo hi"},"tool_use_id":"c1"}`,
					"PostToolUse": `"tool_name":"Bash","tool_input":{"command":"echo hi"},"tool_response":{"stdout":"hi","stderr":"","interrupted":false},"tool_use_id":"c1"}`,
				}[event])
		},
		refused: decisionBlock,
	},
	{
		cmd: "opencode-hook", stop: "session.idle", pre: "tool.execute.before", post: "tool.execute.after",
		payload: func(event, cwd string) []byte {
			return []byte(map[string]string{
				"session.idle":        `{"hook":"session.idle","sessionID":"s1","directory":` + q(cwd) + `}`,
				"tool.execute.before": `{"hook":"tool.execute.before","directory":` + q(cwd) + `,"input":{"tool":"bash","sessionID":"s1","callID":"c1"},"output":{"args":{"command":"echo hi"}}}`,
				"tool.execute.after":  `{"hook":"tool.execute.after","directory":` + q(cwd) + `,"input":{"tool":"bash","sessionID":"s1","callID":"c1","args":{"command":"echo hi"}},"output":{"title":"","output":"hi\n","metadata":{"exit":0}}}`,
			}[event])
		},
		refused: actionBlock,
	},
	{
		cmd: "pi-hook", stop: "message_end", pre: "tool_call", post: "tool_result",
		payload: func(event, cwd string) []byte {
			return []byte(map[string]string{
				"message_end": `{"event":"message_end","session_id":"s1","cwd":` + q(cwd) + `,"stop_hook_active":false,"payload":{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"finished"}],"stopReason":"stop"}}}`,
				"tool_call":   `{"event":"tool_call","session_id":"s1","cwd":` + q(cwd) + `,"payload":{"type":"tool_call","toolName":"bash","toolCallId":"c1","input":{"command":"echo hi"}}}`,
				"tool_result": `{"event":"tool_result","session_id":"s1","cwd":` + q(cwd) + `,"payload":{"type":"tool_result","toolName":"bash","toolCallId":"c1","input":{"command":"echo hi"},"content":[{"type":"text","text":"hi\n"}],"isError":false}}`,
			}[event])
		},
		refused: actionBlock,
	},
}

func q(s string) string { b, _ := json.Marshal(s); return string(b) }

// badCase is one kind of bad input; want is what the one stderr line and the
// person's message must say.
type badCase struct {
	name string
	// input overrides the valid payload; nil keeps it.
	input func(valid []byte) []byte
	// event overrides the event name ("" keeps it).
	event string
	// setup may break the loop file or the log; it returns --config and --event-log.
	setup func(t *testing.T, dir, config, log string) (string, string)
	want  string
	// readable is true when the loop file can be read, so fail_closed is known.
	readable bool
	// gone: the installed hook names a loop file that cannot be read and no
	// session pinned a loop, so stops and tool calls are refused even fail-open.
	gone bool
	// shaped: the input is refused for its shape (too deep, too large), which
	// a tool call's arguments give it: a tool request is refused even
	// fail-open, or the agent could shape its way past the guard.
	shaped bool
}

func badCases() []badCase {
	deep := bytes.Repeat([]byte("["), 100_000)
	deep8M := bytes.Repeat([]byte("["), 8<<20-1)
	huge := append([]byte(`{"x":"`), bytes.Repeat([]byte("a"), 8<<20+10)...)
	huge = append(huge, `"}`...)
	keep := func(t *testing.T, dir, config, log string) (string, string) { return config, log }
	return []badCase{
		{name: "empty stdin", input: func([]byte) []byte { return nil }, setup: keep, want: "stdin is empty", readable: true},
		{name: "blank stdin", input: func([]byte) []byte { return []byte(" \n\t\n") }, setup: keep, want: "stdin is empty", readable: true},
		{name: "not JSON", input: func([]byte) []byte { return []byte("hello, hook\n") }, setup: keep, want: "input", readable: true},
		{name: "truncated JSON", input: func(v []byte) []byte { return v[:len(v)/2] }, setup: keep, want: "input", readable: true},
		{name: "JSON array", input: func([]byte) []byte { return []byte(`[1,2]`) }, setup: keep, want: "input", readable: true},
		{name: "deeply nested", input: func([]byte) []byte { return deep }, setup: keep, want: "levels deep", readable: true, shaped: true},
		// Under the 8 MiB cap: it crashed the claude and pi hooks (fatal stack
		// overflow in a recursive JSON validator) before hookrun checked nesting.
		{name: "deeply nested 8 MiB", input: func([]byte) []byte { return deep8M }, setup: keep, want: "levels deep", readable: true, shaped: true},
		{name: "oversized stdin", input: func([]byte) []byte { return huge }, setup: keep, want: "larger than the 8 MiB cap", readable: true, shaped: true},
		{name: "unknown event", event: "NoSuchEvent", setup: keep, want: "NoSuchEvent", readable: true},
		{name: "missing loop file", setup: func(t *testing.T, dir, config, log string) (string, string) {
			return filepath.Join(dir, "missing.json"), log
		}, want: "missing.json: cannot read DSL file", gone: true},
		{name: "loop file is a directory", setup: func(t *testing.T, dir, config, log string) (string, string) {
			d := filepath.Join(dir, "dir.json")
			must(t, os.Mkdir(d, 0o755))
			return d, log
		}, want: "dir.json: cannot read DSL file", gone: true},
		{name: "loop file not JSON", setup: func(t *testing.T, dir, config, log string) (string, string) {
			p := filepath.Join(dir, "broken.json")
			must(t, os.WriteFile(p, []byte(`{"loop": {"id": "x",}`), 0o644))
			return p, log
		}, want: "broken.json: invalid JSON at line 1"},
		{name: "log directory is a file", setup: func(t *testing.T, dir, config, log string) (string, string) {
			f := filepath.Join(dir, "afile")
			must(t, os.WriteFile(f, nil, 0o644))
			return config, filepath.Join(f, "events.jsonl")
		}, want: "afile/events.jsonl: create event log directory", readable: true},
		{name: "log is a directory", setup: func(t *testing.T, dir, config, log string) (string, string) {
			must(t, os.MkdirAll(log, 0o755))
			return config, log
		}, want: "events.jsonl: open event log", readable: true},
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestHookBadInput runs every hook command on every kind of bad input, for the
// stop, a tool request and a tool result, with the loop failing open (default)
// and closed. Always: no panic, exactly one line on stderr naming what went
// wrong, an answer in the harness's own form that tells the person
// (systemMessage), and an event log that is not touched. The stop is always
// refused, and so is a tool request whose input is too deep or too large
// (the agent's arguments shape it). Fail-open: other events proceed.
// Fail-closed (when the loop file could be read): the tool request is
// refused too; the tool result still proceeds.
func TestHookBadInput(t *testing.T) {
	// Refused stops are counted in the state directory: a temp one.
	t.Setenv(eventlog.StateDirEnv, t.TempDir())
	dsl, err := gallery.Get("plan_execute")
	must(t, err)
	for _, h := range hooksUnderTest {
		if !commandRegistered(h.cmd) {
			// Every harness's hook is registered: a missing one is a regression,
			// never a reason to pass without checking.
			t.Fatalf("%s is not registered", h.cmd)
		}
		for _, c := range badCases() {
			for _, failClosed := range []bool{false, true} {
				for _, event := range []string{h.stop, h.pre, h.post} {
					name := h.cmd + "/" + c.name + "/" + event
					if failClosed {
						name += "/fail_closed"
					}
					t.Run(name, func(t *testing.T) {
						dir := t.TempDir()
						doc := dsl
						if failClosed {
							doc = bytes.Replace(dsl, []byte(`"loop": {`), []byte(`"loop": {"fail_closed": true,`), 1)
							if bytes.Equal(doc, dsl) {
								t.Fatal("could not make the loop fail_closed")
							}
						}
						config := filepath.Join(dir, "hook-loop.json")
						must(t, os.WriteFile(config, doc, 0o644))
						logPath := filepath.Join(dir, ".hook-loop", "events.jsonl")
						config, logPath = c.setup(t, dir, config, logPath)
						if failClosed && !c.readable {
							// The broken file is the loop file itself: nothing says to fail closed.
							if strings.HasSuffix(config, "broken.json") {
								must(t, os.WriteFile(config, []byte(`{"loop": {"id": "x", "fail_closed": true,}`), 0o644))
							}
						}
						ev := event
						if c.event != "" {
							ev = c.event
						}
						valid := h.payload(event, dir)
						if len(valid) == 0 {
							t.Fatalf("no payload for %s", event)
						}
						in := valid
						if c.input != nil {
							in = c.input(valid)
						}
						before := snapshot(logPath)
						var out, errOut bytes.Buffer
						code := Main([]string{"hook-loop", h.cmd, "--event", ev, "--config", config, "--event-log", logPath}, bytes.NewReader(in), &out, &errOut)

						lines := strings.Split(strings.TrimRight(errOut.String(), "\n"), "\n")
						if len(lines) != 1 || !strings.HasPrefix(lines[0], "hook-loop: ") || !strings.Contains(lines[0], c.want) {
							t.Fatalf("stderr is not one line naming %q:\n%s", c.want, errOut.String())
						}
						if after := snapshot(logPath); after != before {
							t.Fatalf("the event log changed on bad input")
						}
						var answer map[string]any
						if err := json.Unmarshal(out.Bytes(), &answer); err != nil {
							t.Fatalf("stdout is not one JSON answer (exit %d): %q", code, out.String())
						}
						if msg, _ := answer["systemMessage"].(string); !strings.Contains(msg, c.want) {
							t.Errorf("the person is not told: systemMessage %q", msg)
						}
						// A stop is refused on every failure; a tool request when
						// the loop is gone or fail_closed.
						wantRefused := c.event == "" && (event == h.stop || event == h.pre && (c.gone || c.shaped || failClosed && c.readable))
						if got := h.refused(answer, code); got != wantRefused {
							t.Fatalf("refused=%v, want %v (exit %d): %s", got, wantRefused, code, out.String())
						}
						if !wantRefused && code != 0 {
							t.Fatalf("the agent must proceed: exit %d", code)
						}
					})
				}
			}
		}
	}
}

// snapshot is the log's bytes, or a marker when there is no regular file.
func snapshot(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "<none>"
	}
	return string(b)
}

func commandRegistered(name string) bool {
	app := NewApp(cmdutil.New(&IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}, version.Version), registry.All())
	return app.Command(name) != nil
}
