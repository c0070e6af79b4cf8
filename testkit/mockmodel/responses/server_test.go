package responses

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func post(t *testing.T, s *Server, body string) []map[string]any {
	t.Helper()
	resp, err := http.Post(s.URL+"/responses", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	var events []map[string]any
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var ev map[string]any
			if err := json.Unmarshal([]byte(d), &ev); err != nil {
				t.Fatal(err)
			}
			events = append(events, ev)
		}
	}
	return events
}

func itemOf(t *testing.T, events []map[string]any) map[string]any {
	t.Helper()
	if len(events) != 4 || events[3]["type"] != "response.completed" {
		t.Fatalf("events = %v", events)
	}
	return events[2]["item"].(map[string]any)
}

func TestScriptedSteps(t *testing.T) {
	s := Start(t, Options{Steps: []Step{
		{Command: "go test ./..."},
		{Patch: "*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\n"},
		{Message: "all steps pass"},
	}, Final: "bye"})
	if !strings.HasPrefix(s.URL, "http://127.0.0.1:") {
		t.Fatalf("URL %q is not loopback", s.URL)
	}
	it := itemOf(t, post(t, s, `{"tools":[{"type":"function","name":"exec_command"}],"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}]}`))
	if it["name"] != "exec_command" || it["arguments"] != `{"cmd":"go test ./..."}` {
		t.Fatalf("shell call = %v", it)
	}
	it = itemOf(t, post(t, s, `{"input":[]}`))
	if it["type"] != "custom_tool_call" || it["name"] != "apply_patch" {
		t.Fatalf("patch call = %v", it)
	}
	it = itemOf(t, post(t, s, `{"input":[]}`))
	if it["type"] != "message" || it["content"].([]any)[0].(map[string]any)["text"] != "all steps pass" {
		t.Fatalf("message = %v", it)
	}
	it = itemOf(t, post(t, s, `{"input":[{"type":"function_call_output","call_id":"c","output":"x"}]}`))
	if it["content"].([]any)[0].(map[string]any)["text"] != "bye" {
		t.Fatalf("final = %v", it)
	}
	reqs := s.Requests()
	if len(reqs) != 4 {
		t.Fatalf("recorded %d requests", len(reqs))
	}
	if got := reqs[0].Messages()[0].String(); got != "message(user): hi" {
		t.Fatalf("message = %q", got)
	}
	if got := NewMessages(reqs, 3); len(got) != 1 || got[0].Text != "x" {
		t.Fatalf("new messages = %v", got)
	}
}

func TestShellShapes(t *testing.T) {
	s := Start(t, Options{Steps: []Step{{Command: "ls"}, {Command: "ls"}}})
	it := itemOf(t, post(t, s, `{"tools":[{"type":"function","name":"shell_command"}]}`))
	if it["name"] != "shell_command" || it["arguments"] != `{"command":"ls"}` {
		t.Fatalf("shell_command = %v", it)
	}
	it = itemOf(t, post(t, s, `{}`))
	if it["name"] != "shell" || it["arguments"] != `{"command":["bash","-lc","ls"]}` {
		t.Fatalf("shell = %v", it)
	}
}

func TestRespondAndBadBody(t *testing.T) {
	s := Start(t, Options{Respond: func(n int, r Request) Step { return Step{Message: "n" + string(rune('0'+n))} }})
	it := itemOf(t, post(t, s, `{}`))
	if it["content"].([]any)[0].(map[string]any)["text"] != "n0" {
		t.Fatalf("respond = %v", it)
	}
	resp, err := http.Post(s.URL+"/responses", "application/json", strings.NewReader("[1"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("bad body status %d", resp.StatusCode)
	}
}
