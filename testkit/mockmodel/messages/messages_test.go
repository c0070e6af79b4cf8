package messages

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url+"/v1/messages?beta=true", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// sseEvents reads a streamed answer into (event, data) pairs.
func sseEvents(t *testing.T, r io.Reader) [][2]string {
	t.Helper()
	var out [][2]string
	sc := bufio.NewScanner(r)
	var name string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data := strings.TrimPrefix(line, "data: ")
			if !json.Valid([]byte(data)) {
				t.Fatalf("event %s: data is not JSON: %s", name, data)
			}
			out = append(out, [2]string{name, data})
		}
	}
	return out
}

func TestScriptedStreamAndRecording(t *testing.T) {
	s, err := Start(Script{
		Steps: []Step{Bash("go test ./...")},
		Next: func(r *Request, n int) Step {
			return Text("answer " + string(rune('0'+n)))
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !strings.HasPrefix(s.URL, "http://127.0.0.1:") {
		t.Fatalf("URL %s is not loopback", s.URL)
	}

	mainBody := `{"model":"m","stream":true,"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"hi"}]}`
	resp := post(t, s.URL, mainBody)
	evs := sseEvents(t, resp.Body)
	resp.Body.Close()
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Errorf("content type %q", resp.Header.Get("Content-Type"))
	}
	var names []string
	for _, e := range evs {
		names = append(names, e[0])
	}
	want := "message_start ping content_block_start content_block_delta content_block_stop message_delta message_stop"
	if strings.Join(names, " ") != want {
		t.Errorf("events = %v, want %s", names, want)
	}
	if !strings.Contains(evs[3][1], `"partial_json":"{\"command\":\"go test ./...\"`) || !strings.Contains(evs[2][1], `"id":"toolu_mock000001"`) {
		t.Errorf("tool call not streamed: %s / %s", evs[2][1], evs[3][1])
	}
	if !strings.Contains(evs[5][1], `"stop_reason":"tool_use"`) {
		t.Errorf("stop reason: %s", evs[5][1])
	}

	// A side request (no Bash tool) does not consume the script.
	resp = post(t, s.URL, `{"model":"m","stream":false,"messages":[{"role":"user","content":"title?"}]}`)
	var side map[string]any
	json.NewDecoder(resp.Body).Decode(&side)
	resp.Body.Close()
	if side["stop_reason"] != "end_turn" {
		t.Errorf("side answer = %v", side)
	}

	second := `{"model":"m","stream":false,"tools":[{"name":"Bash"}],"messages":[
		{"role":"user","content":"hi"},
		{"role":"assistant","content":[{"type":"tool_use","id":"toolu_mock000001","name":"Bash","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_mock000001","is_error":true,"content":"PreToolUse:Bash hook error: no"}]},
		{"role":"system","content":[{"type":"text","text":"context"}]}]}`
	resp = post(t, s.URL, second)
	var ans map[string]any
	json.NewDecoder(resp.Body).Decode(&ans)
	resp.Body.Close()
	content := ans["content"].([]any)[0].(map[string]any)
	if content["text"] != "answer 1" {
		t.Errorf("second main answer = %v, want Next's answer 1", content)
	}

	reqs := s.Requests()
	if len(reqs) != 3 || reqs[0].Kind != "main" || reqs[1].Kind != "side" || reqs[2].Kind != "main" {
		t.Fatalf("requests = %+v", reqs)
	}
	if len(s.MainRequests()) != 2 {
		t.Errorf("MainRequests = %d", len(s.MainRequests()))
	}
	got := strings.Join(Texts(reqs[2].AfterLastAssistant()), "|")
	if got != "user tool_result[error]: PreToolUse:Bash hook error: no|system: context" {
		t.Errorf("AfterLastAssistant texts = %q", got)
	}
}

func TestUnknownEndpointAndCountTokens(t *testing.T) {
	s, err := Start(Script{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	resp, err := http.Post(s.URL+"/v1/messages/count_tokens", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("count_tokens status %d", resp.StatusCode)
	}
	resp, err = http.Get(s.URL + "/api/hello")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("GET status %d, want 404", resp.StatusCode)
	}
	kinds := []string{}
	for _, r := range s.Requests() {
		kinds = append(kinds, r.Kind+" "+r.Path)
	}
	if strings.Join(kinds, ",") != "count_tokens /v1/messages/count_tokens,other /api/hello" {
		t.Errorf("recorded %v", kinds)
	}
	env := strings.Join(s.Env("/h"), " ")
	for _, want := range []string{"ANTHROPIC_BASE_URL=" + s.URL, "HOME=/h", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"} {
		if !strings.Contains(env, want) {
			t.Errorf("Env lacks %s", want)
		}
	}
}
