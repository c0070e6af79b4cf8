package copilot

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/adapters/harness"
	"github.com/hook-loop/hook-loop/loop"
)

// payload reads a record captured from the real Copilot CLI 1.0.102
// (testdata/payloads, copied from ../shared/harness/copilot/payloads).
func payload(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "payloads", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Every recorded payload decodes, with its event taken from the file name
// (as install passes it with --event: the payloads do not name it).
func TestDecodeRecordedPayloads(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "payloads", "*.json"))
	if err != nil || len(files) != 15 {
		t.Fatalf("recorded payloads: %d files, %v", len(files), err)
	}
	want := map[string]string{EventSessionStart: loop.EventSessionStart, EventPrompt: loop.EventUserPromptSubmit,
		EventPreToolUse: loop.EventPreToolUse, EventPostToolUse: loop.EventPostToolUse, EventAgentStop: loop.EventStop,
		EventSessionEnd: loop.EventSessionEnd}
	for _, f := range files {
		base := strings.TrimSuffix(filepath.Base(f), ".json")
		native := base[strings.LastIndex(base, "-")+1:]
		ev, err := New().Decode(native, payload(t, filepath.Base(f)))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if ev.Name != want[native] || ev.NativeName != native || ev.Harness != "copilot" || ev.SessionID == "" || ev.Cwd != "/home/user/project" {
			t.Errorf("%s: decoded %+v", f, ev)
		}
	}
}

func TestDecodeTheRecordedSession(t *testing.T) {
	a := New()
	start, _ := a.Decode(EventSessionStart, payload(t, "000-sessionStart.json"))
	if start.Source != "new" || start.SessionID != "9479d374-23d4-4e75-804f-7278807cae76" {
		t.Errorf("sessionStart: %+v", start)
	}
	// The refused stop's reason came back as the next prompt.
	prompt, _ := a.Decode(EventPrompt, payload(t, "003-userPromptSubmitted.json"))
	if prompt.Prompt != "hook-loop test: you cannot stop yet, run make check first" {
		t.Errorf("prompt = %q", prompt.Prompt)
	}
	pre, _ := a.Decode(EventPreToolUse, payload(t, "004-preToolUse.json"))
	if pre.ToolName != "Bash" || pre.Command != "make check" || len(pre.TargetPaths) != 0 {
		t.Errorf("preToolUse: tool %q command %q targets %q", pre.ToolName, pre.Command, pre.TargetPaths)
	}
	post, _ := a.Decode(EventPostToolUse, payload(t, "005-postToolUse.json"))
	if post.Result == nil || post.Result.ExitCode == nil || *post.Result.ExitCode != 0 || !strings.Contains(post.Result.Output, "all checks ok") {
		t.Errorf("postToolUse result: %+v", post.Result)
	}
	first, _ := a.Decode(EventAgentStop, payload(t, "002-agentStop.json"))
	second, _ := a.Decode(EventAgentStop, payload(t, "006-agentStop.json"))
	if first.StopHookActive || !second.StopHookActive || first.TranscriptPath == "" {
		t.Errorf("agentStop: first %+v, second %+v", first, second)
	}
	end, _ := a.Decode(EventSessionEnd, payload(t, "007-sessionEnd.json"))
	if end.Source != "complete" {
		t.Errorf("sessionEnd reason = %q", end.Source)
	}
}

func TestExitCodeIsOnlyInTheShellText(t *testing.T) {
	cases := []struct {
		tool, result string
		want         *int
	}{
		{"bash", `{"resultType":"success","textResultForLlm":"boom\n<shellId: 3 completed with exit code 2>"}`, loop.IntPtr(2)},
		{"bash", `{"resultType":"success","textResultForLlm":"still running"}`, nil},
		{"bash", `{"resultType":"failure","textResultForLlm":"<shellId: 0 completed with exit code 0> then more"}`, nil},
		{"create", `{"resultType":"success","textResultForLlm":"Created file"}`, loop.IntPtr(0)},
		{"create", `{"resultType":"failure","textResultForLlm":"Permission denied"}`, nil},
	}
	for _, c := range cases {
		in := `{"sessionId":"s","cwd":"/p","toolName":"` + c.tool + `","toolArgs":{"command":"x","path":"f"},"toolResult":` + c.result + `}`
		ev, err := New().Decode(EventPostToolUse, []byte(in))
		if err != nil {
			t.Fatal(err)
		}
		got := ev.Result.ExitCode
		if (got == nil) != (c.want == nil) || got != nil && *got != *c.want {
			t.Errorf("%s %s: exit code %v, want %v", c.tool, c.result, got, c.want)
		}
	}
}

func TestWritesAreTargets(t *testing.T) {
	for _, in := range []string{
		`{"cwd":"/p","toolName":"create","toolArgs":{"path":"sub/a.txt","file_text":"x"}}`,
		`{"cwd":"/p","toolName":"edit","toolArgs":"{\"path\":\"/p/sub/a.txt\",\"old_str\":\"a\",\"new_str\":\"b\"}"}`,
	} {
		ev, err := New().Decode(EventPreToolUse, []byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if len(ev.TargetPaths) != 1 || ev.TargetPaths[0] != "/p/sub/a.txt" || ev.Command != "" {
			t.Errorf("%s: tool %q targets %q command %q", in, ev.ToolName, ev.TargetPaths, ev.Command)
		}
	}
}

func TestDecodeErrorsNameThePath(t *testing.T) {
	cases := []struct{ event, in, want string }{
		{"", `{}`, "no --event given"},
		{"errorOccurred", `{}`, `unsupported Copilot CLI event "errorOccurred"`},
		{EventPreToolUse, ``, "stdin is empty"},
		{EventPreToolUse, `[1]`, "$ is an array"},
		{EventPreToolUse, `{"toolArgs":{}}`, "$.toolName is missing"},
		{EventPreToolUse, `{"toolName":"bash","toolArgs":[1]}`, "$.toolArgs is an array: expected an object"},
		{EventAgentStop, `{"stop_hook_active":"yes"}`, "$.stop_hook_active is a string"},
		{EventPrompt, `{"prompt":3}`, "$.prompt is a number"},
	}
	for _, c := range cases {
		_, err := New().Decode(c.event, []byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Decode(%q, %s) = %v, want %q", c.event, c.in, err, c.want)
		}
	}
}

// The answers are the shapes the records show Copilot honouring.
func TestEncodeTheRecordedShapes(t *testing.T) {
	block := loop.Decision{Action: loop.Block, Reason: "run make check && stop"}
	cases := []struct {
		native       string
		d            loop.Decision
		stdout, errs string
	}{
		{EventPreToolUse, block, `{"permissionDecision":"deny","permissionDecisionReason":"run make check && stop"}` + "\n", ""},
		{EventAgentStop, block, `{"decision":"block","reason":"run make check && stop"}` + "\n", ""},
		{EventSubagentStop, block, `{"decision":"block","reason":"run make check && stop"}` + "\n", ""},
		{EventAgentStop, loop.Decision{Action: loop.Allow}, "", ""},
		{EventPreToolUse, loop.Decision{Action: loop.Steer, Context: "remember the plan"}, "", "hook-loop: remember the plan\n"},
		{EventPostToolUse, block, "", "hook-loop: run make check && stop\n"},
	}
	for _, c := range cases {
		out := New().Encode(loop.HookEvent{Name: canonicalOf(c.native), NativeName: c.native}, c.d)
		if string(out.Stdout) != c.stdout || string(out.Stderr) != c.errs || out.Exit != 0 {
			t.Errorf("%s %+v: stdout %q stderr %q exit %d; want %q, %q, 0", c.native, c.d, out.Stdout, out.Stderr, out.Exit, c.stdout, c.errs)
		}
	}
}

func TestOwnedPathsFollowCopilotHome(t *testing.T) {
	got := Hooks.OwnedPaths("/home/u", func(string) string { return "" })
	want := []string{".github/hooks/", "/home/u/.copilot/hooks/", "/home/u/.copilot/settings.json"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("owned = %q, want %q", got, want)
	}
	got = Hooks.OwnedPaths("/home/u", func(k string) string {
		if k == "COPILOT_HOME" {
			return "/cfg"
		}
		return ""
	})
	if got[1] != "/cfg/hooks/" {
		t.Errorf("owned with COPILOT_HOME = %q", got)
	}
}

// view names the file it reads in path: hook-loop's secrets are refused to it
// as to cat, so the guard must see the path; writes and shells name none.
func TestViewPathsAreReadPaths(t *testing.T) {
	ev, err := New().Decode(EventPreToolUse, []byte(`{"cwd":"/p","toolName":"view","toolArgs":{"path":"/s/hook-loop/keys/k.key"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.ReadPaths) != 1 || ev.ReadPaths[0] != "/s/hook-loop/keys/k.key" {
		t.Errorf("view: ReadPaths = %q", ev.ReadPaths)
	}
	ev, err = New().Decode(EventPreToolUse, []byte(`{"cwd":"/p","toolName":"create","toolArgs":{"path":"a.txt","file_text":"x"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.ReadPaths) != 0 {
		t.Errorf("create: ReadPaths = %q, want none (a write is judged as a target)", ev.ReadPaths)
	}
}

// TestArgsTextKeyTwice: arguments sent as JSON text are the model's own,
// which may name a key twice; Copilot CLI keeps the last, and so must the
// paths hook-loop judges.
func TestArgsTextKeyTwice(t *testing.T) {
	args, _ := json.Marshal(`{"path": "/p/ok.txt", "file_text": "x", "path": "/p/hook-loop.json", "nested": {"a": 1, "a": 2}}`)
	ev, err := New().Decode(EventPreToolUse, []byte(`{"cwd": "/p", "toolName": "create", "toolArgs": `+string(args)+`}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(ev.TargetPaths) != 1 || ev.TargetPaths[0] != "/p/hook-loop.json" {
		t.Errorf("TargetPaths = %q, want the last path", ev.TargetPaths)
	}
}

// TestArgsTextTooDeepIsAnError: JSON text encoding/json cannot read (nested
// past its limit inside the string, where the hook's own depth check never
// looks) is a decode error, not read by gjson, which would judge the first
// of a key named twice where Copilot CLI writes the last.
func TestArgsTextTooDeepIsAnError(t *testing.T) {
	// Past encoding/json's limit, and past the hook's own (the stdin's, which
	// never sees inside the string).
	for _, n := range []int{10005, harness.MaxNesting} {
		deep := strings.Repeat("[", n) + strings.Repeat("]", n)
		args, _ := json.Marshal(`{"path": "/p/a.txt", "file_text": "x", "pad": ` + deep + `, "path": "/p/hook-loop.json"}`)
		ev, err := New().Decode(EventPreToolUse, []byte(`{"cwd": "/p", "toolName": "create", "toolArgs": `+string(args)+`}`))
		var shape *harness.ShapeError
		if !errors.As(err, &shape) || !strings.Contains(err.Error(), "$.toolArgs") {
			t.Errorf("%d deep: err = %v, TargetPaths = %q: want a shape error naming $.toolArgs (refused whatever fail_closed says)", n, err, ev.TargetPaths)
		}
	}
}

// TestArgsTextOfBracketsIsAnError: 8 MiB of "[" as the arguments' text
// (inside a string, past the stdin's nesting check) is a shape error;
// gjson.Valid, which recursed once per level, crashed the hook with a fatal
// stack overflow before the text's own nesting check came first.
func TestArgsTextOfBracketsIsAnError(t *testing.T) {
	args, _ := json.Marshal(strings.Repeat("[", 8<<20))
	_, err := New().Decode(EventPreToolUse, []byte(`{"cwd": "/p", "toolName": "create", "toolArgs": `+string(args)+`}`))
	var shape *harness.ShapeError
	if !errors.As(err, &shape) {
		t.Errorf("err = %v, want a shape error", err)
	}
}

// TestWriteShellIsUnseen: what write_bash and write_powershell type goes to a
// shell started earlier, whose directory and program no hook showed, so the
// adapter reports it unseen for the guard to refuse.
func TestWriteShellIsUnseen(t *testing.T) {
	for _, tool := range []string{"write_bash", "write_powershell"} {
		ev, err := New().Decode(EventPreToolUse, []byte(`{"cwd": "/p", "toolName": "`+tool+`", "toolArgs": {"shellId": "1", "input": "rm events.jsonl\n"}}`))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(ev.Unseen, "fresh") {
			t.Errorf("%s: Unseen = %q, want the shell's input reported unseen", tool, ev.Unseen)
		}
	}
	ev, err := New().Decode(EventPreToolUse, []byte(`{"cwd": "/p", "toolName": "bash", "toolArgs": {"command": "ls", "mode": "async"}}`))
	if err != nil || ev.Unseen != "" {
		t.Errorf("bash: Unseen = %q, err = %v: want nothing unseen", ev.Unseen, err)
	}
}
