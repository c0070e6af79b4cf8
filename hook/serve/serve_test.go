package serve_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hook-loop/hook-loop/adapters/harness"

	"github.com/hook-loop/hook-loop/adapters/opencode"
	"github.com/hook-loop/hook-loop/hook"
	"github.com/hook-loop/hook-loop/hook/full"
	"github.com/hook-loop/hook-loop/hook/serve"
)

func opencodeAdapter() harness.Adapter { return opencode.New() }

// lines serves in and returns the output lines after the hello, decoded.
func lines(t *testing.T, in string, o serve.Options) (serve.Hello, []serve.Answer) {
	t.Helper()
	var out bytes.Buffer
	if err := serve.Serve(context.Background(), strings.NewReader(in), &out, o); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 64<<20)
	var h serve.Hello
	var as []serve.Answer
	for i := 0; sc.Scan(); i++ {
		if i == 0 {
			if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
				t.Fatalf("hello %q: %v", sc.Text(), err)
			}
			continue
		}
		var a serve.Answer
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatalf("answer %q: %v", sc.Text(), err)
		}
		as = append(as, a)
	}
	return h, as
}

func TestServeSaysHelloAndAnswersByID(t *testing.T) {
	var seen []string
	o := serve.Options{Adapter: opencodeAdapter, Version: "v9", Cwd: "/srv", ConfigPath: "/p/hook-loop.json",
		Run: func(_ context.Context, ho hook.Request) harness.Output {
			var b bytes.Buffer
			b.ReadFrom(ho.Stdin)
			seen = append(seen, ho.Event+" "+ho.ConfigPath+" "+ho.LogPath+" "+ho.Cwd+" "+b.String())
			return harness.Output{Stdout: []byte("out " + ho.Event), Stderr: []byte("err"), Exit: len(seen)}
		}}
	h, as := lines(t, `{"id":7,"event":"a","input":{"x":1}}`+"\n\n"+`{"id":"k","event":"b","input":{},"cwd":"/w","config":"/q/l.json","event_log":"/q/e.jsonl"}`, o)
	if h.Hello != "hook-loop" || h.Version != "v9" || h.Harness != "opencode" || h.PID != os.Getpid() || h.BinarySize == 0 {
		t.Fatalf("hello %+v", h)
	}
	if len(as) != 2 || string(as[0].ID) != "7" || as[0].Stdout != "out a" || as[0].Exit != 1 || string(as[1].ID) != `"k"` || as[1].Exit != 2 {
		t.Fatalf("answers %+v", as)
	}
	want := []string{`a /p/hook-loop.json  /srv {"x":1}`, `b /q/l.json /q/e.jsonl /w {}`}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Fatalf("requests reached the runner as %q, want %q", seen, want)
	}
}

// A panic answers its own request as a failed hook; the next is served.
func TestServeSurvivesAPanic(t *testing.T) {
	o := serve.Options{Adapter: opencodeAdapter, Run: func(_ context.Context, ho hook.Request) harness.Output {
		if ho.Event == "boom" {
			panic("kaboom")
		}
		return harness.Output{Stdout: []byte("fine")}
	}}
	_, as := lines(t, `{"id":1,"event":"boom","input":{}}`+"\n"+`not json`+"\n"+`{"id":2,"event":"ok","input":{}}`+"\n", o)
	if len(as) != 3 {
		t.Fatalf("answers %+v", as)
	}
	if string(as[0].ID) != "1" || as[0].Exit != 1 || !strings.Contains(as[0].Stderr, "kaboom") || as[0].Stdout != "" {
		t.Fatalf("panicking request answered %+v", as[0])
	}
	if string(as[1].ID) != "null" || as[1].Exit != 1 || !strings.Contains(as[1].Stderr, "expected one JSON object") {
		t.Fatalf("bad line answered %+v", as[1])
	}
	if string(as[2].ID) != "2" || as[2].Stdout != "fine" || as[2].Exit != 0 {
		t.Fatalf("next request answered %+v", as[2])
	}
}

// A line past the input cap is refused without being buffered whole, and the
// stream goes on.
func TestServeSkipsAnOversizedLine(t *testing.T) {
	o := serve.Options{Adapter: opencodeAdapter, Run: func(context.Context, hook.Request) harness.Output {
		return harness.Output{Stdout: []byte("fine")}
	}}
	big := `{"id":1,"event":"a","input":"` + strings.Repeat("x", hook.MaxInput+128<<10) + `"}`
	_, as := lines(t, big+"\n"+`{"id":2,"event":"a","input":{}}`+"\n", o)
	if len(as) != 2 || as[0].Exit != 1 || !strings.Contains(as[0].Stderr, "longer than") || string(as[1].ID) != "2" || as[1].Stdout != "fine" {
		t.Fatalf("answers %+v", as)
	}
}

const loopFile = `{"loop": {"id": "t", "initial_state": "building", "states": ["building", "done", "stopped"],
 "events": ["finished"], "transitions": [{"from": "building", "event": "finished", "to": "done"}]}}`

// The co-process answers exactly what the one-shot hook answers for the same
// events, and logs the same events: it is the same code path.
func TestServeMatchesTheOneShotHook(t *testing.T) {
	events := []struct{ event, input string }{
		{"session.created", `{"hook":"session.created","event":{"type":"session.created","properties":{"info":{"id":"s1"}}}}`},
		{"tool.execute.before", `{"hook":"tool.execute.before","input":{"tool":"bash","sessionID":"s1","callID":"c1"},"output":{"args":{"command":"ls"}}}`},
		{"tool.execute.after", `{"hook":"tool.execute.after","input":{"tool":"bash","sessionID":"s1","callID":"c1"},"output":{"title":"ls","output":"a\n","metadata":{"exit":0}}}`},
		{"experimental.text.complete", `{"hook":"experimental.text.complete","sessionID":"s1","lastAssistantMessage":"done","stopHookActive":false}`},
		{"tool.execute.before", `{"hook":"tool.execute.before","input":`},
	}
	project := func() string {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "hook-loop.json"), []byte(loopFile), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	noHooks := filepath.Join(t.TempDir(), "none.json")
	oneShotDir, serveDir := project(), project()
	var want []string
	// Each as a hook process of its own: nothing kept from one to the next.
	func() {
		for _, e := range events {
			out := hook.New(full.Deps(hook.Deps{})).Run(context.Background(), hook.Request{Adapter: opencode.New(),
				Flags: hook.Flags{Event: e.event, HooksConfig: noHooks}, Stdin: strings.NewReader(e.input), Cwd: oneShotDir})
			want = append(want, fmt.Sprintf("%d %s %s", out.Exit, out.Stdout, out.Stderr))
		}
	}()
	var in strings.Builder
	for i, e := range events {
		input := e.input
		if !json.Valid([]byte(input)) {
			b, _ := json.Marshal(input) // the plugin never sends this; the hook must still answer
			input = string(b)
		}
		fmt.Fprintf(&in, `{"id":%d,"event":%q,"input":%s,"cwd":%q}`+"\n", i, e.event, input, serveDir)
	}
	_, as := lines(t, in.String(), serve.Options{Adapter: opencodeAdapter, HooksConfig: noHooks, Cwd: "/"})
	if len(as) != len(events) {
		t.Fatalf("answers %+v", as)
	}
	for i, a := range as {
		got := strings.ReplaceAll(fmt.Sprintf("%d %s %s", a.Exit, a.Stdout, a.Stderr), serveDir, oneShotDir)
		if i < len(events)-1 && got != want[i] {
			t.Errorf("event %d (%s):\n serve    %q\n one-shot %q", i, events[i].event, got, want[i])
		}
	}
	logOf := func(dir string) []string {
		b, err := os.ReadFile(filepath.Join(dir, ".hook-loop", "events.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		var types []string
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var e struct {
				EventType string `json:"event_type"`
				State     string `json:"state"`
			}
			json.Unmarshal([]byte(l), &e)
			types = append(types, e.EventType+"@"+e.State)
		}
		return types
	}
	if a, b := logOf(serveDir), logOf(oneShotDir); fmt.Sprint(a) != fmt.Sprint(b) || len(a) == 0 {
		t.Fatalf("logs differ:\n serve    %q\n one-shot %q", a, b)
	}
}

// What another process appended between two requests (here a one-shot hook
// that moves the loop on) is what the co-process's next answer is judged by:
// it keeps the log's fold only while nothing else wrote the log.
func TestServeSeesWhatOtherProcessesAppended(t *testing.T) {
	dir := t.TempDir()
	loop := `{"loop": {"id": "t", "initial_state": "building", "states": ["building", "done", "stopped"],
 "events": ["finished"], "transitions": [{"from": "building", "event": "finished", "to": "done"}]},
 "codex": {"event_map": [{"codex_event": "UserPromptSubmit", "when": {"prompt_match": "^ship it$"}, "emit": "finished"}]}}`
	if err := os.WriteFile(filepath.Join(dir, "hook-loop.json"), []byte(loop), 0o644); err != nil {
		t.Fatal(err)
	}
	noHooks := filepath.Join(dir, "no-hooks.json")
	if err := os.WriteFile(noHooks, []byte(`{"hooks": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- serve.Serve(context.Background(), inR, outW, serve.Options{Adapter: opencodeAdapter, HooksConfig: noHooks, Cwd: dir})
		outW.Close()
	}()
	answers := bufio.NewScanner(outR)
	answers.Scan() // hello
	toolCall := func(id int) string {
		t.Helper()
		fmt.Fprintf(inW, `{"id":%d,"event":"tool.execute.before","input":{"hook":"tool.execute.before","input":{"tool":"bash","sessionID":"s1","callID":"c%d"},"output":{"args":{"command":"ls"}}}}`+"\n", id, id)
		if !answers.Scan() {
			t.Fatalf("no answer to request %d", id)
		}
		var a serve.Answer
		var d struct{ State string }
		if err := json.Unmarshal(answers.Bytes(), &a); err != nil || json.Unmarshal([]byte(a.Stdout), &d) != nil {
			t.Fatalf("answer %s", answers.Text())
		}
		return d.State
	}
	if s := toolCall(1); s != "building" {
		t.Fatalf("state %q before, want building", s)
	}
	// Another process's one-shot hook: the person says "ship it".
	var out harness.Output
	func() {
		out = hook.New(full.Deps(hook.Deps{})).Run(context.Background(), hook.Request{Adapter: opencode.New(),
			Flags: hook.Flags{Event: "chat.message", HooksConfig: noHooks}, Cwd: dir,
			Stdin: strings.NewReader(`{"hook":"chat.message","input":{"sessionID":"s1"},"output":{"message":{"id":"m","role":"user","sessionID":"s1"},"parts":[{"type":"text","text":"ship it"}]}}`)})
	}()
	if out.Exit != 0 || !strings.Contains(string(out.Stdout), `"state":"done"`) {
		t.Fatalf("one-shot hook: %d %s %s", out.Exit, out.Stdout, out.Stderr)
	}
	if s := toolCall(2); s != "done" {
		t.Fatalf("state %q after another process moved the loop on, want done", s)
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestServeRefusesAToolCallNestedTooDeep: a tool call whose arguments nest
// deeper than encoding/json recurses still reaches the hook, which refuses
// it, rather than failing as a request the plugin lets through (fail-open).
func TestServeRefusesAToolCallNestedTooDeep(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hook-loop.json"), []byte(loopFile), 0o644); err != nil {
		t.Fatal(err)
	}
	deep := strings.Repeat("[", 10010) + strings.Repeat("]", 10010)
	input := `{"hook":"tool.execute.before","input":{"tool":"mcp_fs_write","sessionID":"s1","callID":"c1"},"output":{"args":{"path":"notes.md","opts":` + deep + `}}}`
	noHooks := filepath.Join(t.TempDir(), "none.json")
	_, as := lines(t, fmt.Sprintf(`{"id":1,"event":"tool.execute.before","input":%s,"cwd":%q}`+"\n", input, dir),
		serve.Options{Adapter: opencodeAdapter, HooksConfig: noHooks, Cwd: "/"})
	if len(as) != 1 || string(as[0].ID) != "1" || !strings.Contains(as[0].Stdout, `"action":"block"`) {
		t.Fatalf("answers %+v, want the call refused", as)
	}
	// Refused for its depth: notes.md itself is no loop file.
	if !strings.Contains(strings.ToLower(as[0].Stdout), "deep") {
		t.Errorf("refused for another reason: %s", as[0].Stdout)
	}
}
