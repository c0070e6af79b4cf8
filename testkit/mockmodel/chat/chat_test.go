package chat

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

func post(t *testing.T, s *Server, body any) []map[string]any {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(s.BaseURL()+"/chat/completions", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out []map[string]any
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		var m map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
			t.Fatal(err)
		}
		return []map[string]any{m}
	}
	sc := bufio.NewScanner(resp.Body)
	sawDone := false
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "data: ") {
			continue
		}
		data := strings.TrimPrefix(line, "data: ")
		if data == "[DONE]" {
			sawDone = true
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			t.Fatalf("bad chunk %q: %v", data, err)
		}
		out = append(out, m)
	}
	if !sawDone {
		t.Fatal("stream did not end with [DONE]")
	}
	return out
}

// collect concatenates the streamed text and tool-call arguments.
func collect(chunks []map[string]any) (text string, calls map[string]string, finish string) {
	calls = map[string]string{}
	names := map[float64]string{}
	for _, c := range chunks {
		choices, _ := c["choices"].([]any)
		for _, ch := range choices {
			ch := ch.(map[string]any)
			if f, ok := ch["finish_reason"].(string); ok {
				finish = f
			}
			d, _ := ch["delta"].(map[string]any)
			if s, ok := d["content"].(string); ok {
				text += s
			}
			tcs, _ := d["tool_calls"].([]any)
			for _, tc := range tcs {
				tc := tc.(map[string]any)
				idx := tc["index"].(float64)
				fn := tc["function"].(map[string]any)
				if n, ok := fn["name"].(string); ok {
					names[idx] = n
				}
				calls[names[idx]] += fn["arguments"].(string)
			}
		}
	}
	return
}

func TestStepsTitleAndRecording(t *testing.T) {
	s, err := Start(Options{Steps: []Step{
		ToolCall("bash", map[string]any{"command": "echo hi"}),
		Func(func(r *Request) Reply {
			if strings.Contains(r.LastToolResult(), "BLOCKED") {
				return Reply{Text: "saw block"}
			}
			return Reply{Text: "no block"}
		}),
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tools := []any{map[string]any{"type": "function", "function": map[string]any{"name": "bash"}}}

	// A title request (no tools) consumes no step.
	text, _, _ := collect(post(t, s, map[string]any{"stream": true, "messages": []any{map[string]any{"role": "user", "content": "x"}}}))
	if text != "Mock title" {
		t.Fatalf("title reply = %q", text)
	}
	_, calls, finish := collect(post(t, s, map[string]any{"stream": true, "tools": tools,
		"messages": []any{map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "run it"}}}}}))
	if calls["bash"] != `{"command":"echo hi"}` || finish != "tool_calls" {
		t.Fatalf("tool step: calls=%v finish=%q", calls, finish)
	}
	text, _, finish = collect(post(t, s, map[string]any{"stream": true, "tools": tools, "messages": []any{
		map[string]any{"role": "user", "content": "run it"},
		map[string]any{"role": "tool", "tool_call_id": "c1", "content": "BLOCKED by policy"},
	}}))
	if text != "saw block" || finish != "stop" {
		t.Fatalf("func step: %q %q", text, finish)
	}
	// Steps exhausted: the default text, non-streaming this time.
	out := post(t, s, map[string]any{"tools": tools, "messages": []any{map[string]any{"role": "user", "content": "again"}}})
	msg := out[0]["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)
	if msg["content"] != "done" {
		t.Fatalf("default reply = %v", msg)
	}

	reqs := s.Requests()
	if len(reqs) != 4 || len(s.AgentRequests()) != 3 || s.StepsUsed() != 2 {
		t.Fatalf("recorded %d requests, %d agent, %d steps", len(reqs), len(s.AgentRequests()), s.StepsUsed())
	}
	if got := reqs[1].LastUserText(); got != "run it" {
		t.Fatalf("flattened user text = %q", got)
	}
	if got := reqs[2].ToolResults(); len(got) != 1 || got[0].ToolCallID != "c1" {
		t.Fatalf("tool results = %+v", got)
	}
	if reqs[0].Step != -1 || reqs[1].Step != 0 || reqs[2].Step != 1 || reqs[3].Step != -1 {
		t.Fatalf("step indexes: %d %d %d %d", reqs[0].Step, reqs[1].Step, reqs[2].Step, reqs[3].Step)
	}
	if !s.WaitFor(time.Second, func(r []Request) bool { return len(r) == 4 }) {
		t.Fatal("WaitFor did not see 4 requests")
	}
	if s.WaitFor(50*time.Millisecond, func(r []Request) bool { return len(r) == 5 }) {
		t.Fatal("WaitFor reported a request that never came")
	}
}

func TestRejectsNonLoopback(t *testing.T) {
	if _, err := Start(Options{Addr: "0.0.0.0:0"}); err == nil {
		t.Fatal("expected an error for a non-loopback address")
	}
}
