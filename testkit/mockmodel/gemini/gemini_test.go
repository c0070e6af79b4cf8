package gemini

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func post(t *testing.T, url string, body any) *http.Response {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// The agent loop's requests get the script's steps in order (streamed as one
// SSE event, as Gemini CLI asks), side requests asking for JSON get JSON text
// and do not use up a step, and what the model received can be read back.
func TestScriptAndRecording(t *testing.T) {
	s, err := Start(Script{Steps: []Step{Shell("make test"), Text("done here")}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !strings.HasPrefix(s.URL, "http://127.0.0.1:") {
		t.Fatalf("mock listens on %s, want loopback", s.URL)
	}
	agent := map[string]any{"contents": []any{
		map[string]any{"role": "user", "parts": []any{map[string]any{"text": "do it"}}},
	}}
	resp := post(t, s.URL+"/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse", agent)
	line, _ := bufio.NewReader(resp.Body).ReadString('\n')
	if resp.Header.Get("Content-Type") != "text/event-stream" || !strings.Contains(line, `"functionCall":{"args":{"command":"make test"`) {
		t.Errorf("first answer %q (%s), want the shell call as SSE", line, resp.Header.Get("Content-Type"))
	}
	side := map[string]any{"contents": []any{}, "generationConfig": map[string]any{"responseMimeType": "application/json"}}
	var got struct {
		Candidates []struct {
			Content struct {
				Parts []struct{ Text string } `json:"parts"`
			} `json:"content"`
		} `json:"candidates"`
	}
	if err := json.NewDecoder(post(t, s.URL+"/v1beta/models/x:generateContent", side).Body).Decode(&got); err != nil || !json.Valid([]byte(got.Candidates[0].Content.Parts[0].Text)) {
		t.Errorf("side request answered %+v (%v), want JSON text", got, err)
	}
	agent["contents"] = append(agent["contents"].([]any),
		map[string]any{"role": "model", "parts": []any{map[string]any{"functionCall": map[string]any{"name": "run_shell_command", "args": map[string]any{}}}}},
		map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{"name": "run_shell_command", "response": map[string]any{"output": "ok"}}}}})
	if err := json.NewDecoder(post(t, s.URL+"/v1beta/models/x:generateContent", agent).Body).Decode(&got); err != nil || got.Candidates[0].Content.Parts[0].Text != "done here" {
		t.Errorf("second agent answer %+v (%v), want the second step", got, err)
	}
	main := s.MainRequests()
	if len(main) != 2 || len(s.Requests()) != 3 {
		t.Fatalf("%d main of %d requests, want 2 of 3", len(main), len(s.Requests()))
	}
	if got := Texts(main[1].AfterLastModel()); len(got) != 1 || got[0] != `user functionResponse run_shell_command: {"output":"ok"}` {
		t.Errorf("new to the model: %q", got)
	}
}
