// Package messages is a scripted mock of the Anthropic Messages API, enough to run
// the real Claude Code CLI (`claude -p`) offline in tests. It listens on
// 127.0.0.1 only, streams answers as server-sent events the way the real API does,
// and records every request so a test can assert on what the model received.
//
// The main agent loop's requests (those offering the Bash tool) are answered from
// a script, one step per request; side requests (titles, summaries, quota probes)
// get a short text. The behaviour follows ../shared/harness/claude/mock/mock.py.
package messages

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/hook-loop/hook-loop/testkit/mockmodel/scripted"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
)

// Step is one answer of the scripted model: a tool call when Tool is set,
// else the final text Text.
type Step = scripted.Step

// Bash is a tool-call step running command.
func Bash(command string) Step {
	return Step{Tool: "Bash", Input: map[string]any{"command": command, "description": "scripted by the mock model"}}
}

// Text is a text-only step: the model's turn ends with this answer.
func Text(s string) Step { return scripted.Text(s) }

// Script decides the model's answers.
type Script = scripted.Script[Request]

// Request is one HTTP request the mock received.
type Request struct{ scripted.Meta }

func meta(r *Request) *scripted.Meta { return &r.Meta }

// Server is a running mock.
type Server struct {
	*scripted.Server[Request] // URL: the base URL to give Claude Code as ANTHROPIC_BASE_URL

	toolID atomic.Int64
}

// Start listens on 127.0.0.1 on a free port and serves script.
func Start(script Script) (*Server, error) {
	s := &Server{}
	srv, err := scripted.Start("messages api", script, meta, s.serve)
	if err != nil {
		return nil, err
	}
	s.Server = srv
	return s, nil
}

// Env is the environment that runs `claude -p` against this mock and nothing
// else (harness/claude/mock/README.md: with it, strace shows exactly one TCP
// connection, to the mock). home isolates Claude Code's config and state;
// hook-loop's state directory, when the test set one, is passed on so that
// the hooks and the test's own reads of the log agree on where it lives.
func (s *Server) Env(home string) []string {
	return scripted.Env(home,
		"ANTHROPIC_BASE_URL="+s.URL, "ANTHROPIC_API_KEY=dummy", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1")
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req := Request{scripted.NewMeta(r, body)}

	switch {
	case r.Method == http.MethodHead:
		s.Record(req)
		w.WriteHeader(http.StatusOK)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens":
		req.Kind = "count_tokens"
		s.Record(req)
		writeJSON(w, http.StatusOK, map[string]any{"input_tokens": 1234})
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
		var mr struct {
			Model  string `json:"model"`
			Stream bool   `json:"stream"`
			Tools  []struct {
				Name string `json:"name"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(body, &mr); err != nil {
			s.Record(req)
			writeJSON(w, http.StatusBadRequest, apiError("invalid_request_error", "mock: body is not JSON"))
			return
		}
		main := false
		for _, t := range mr.Tools {
			main = main || t.Name == "Bash"
		}
		req = s.Answer(req, main, Text("Mock session"))
		step := req.Step
		var id string
		if step.Tool != "" {
			id = fmt.Sprintf("toolu_mock%06d", s.toolID.Add(1))
		}

		model := mr.Model
		if model == "" {
			model = "claude-mock"
		}
		msgID := fmt.Sprintf("msg_mock%06d", req.N)
		if mr.Stream {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("Cache-Control", "no-cache")
			w.Header().Set("request-id", "req_mock")
			w.WriteHeader(http.StatusOK)
			w.Write(streamBody(model, msgID, step, id)) //nolint:errcheck // the client hung up
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"id": msgID, "type": "message", "role": "assistant", "model": model,
			"content": []any{block(step, id)}, "stop_reason": stopReason(step), "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": 100, "output_tokens": 10},
		})
	default:
		s.Record(req)
		writeJSON(w, http.StatusNotFound, apiError("not_found_error", "mock: no such endpoint"))
	}
}

func stopReason(st Step) string {
	if st.Tool != "" {
		return "tool_use"
	}
	return "end_turn"
}

func block(st Step, id string) map[string]any {
	if st.Tool != "" {
		in := st.Input
		if in == nil {
			in = map[string]any{}
		}
		return map[string]any{"type": "tool_use", "id": id, "name": st.Tool, "input": in}
	}
	return map[string]any{"type": "text", "text": st.Text}
}

// streamBody renders one answer as the SSE events of the streaming Messages API.
func streamBody(model, msgID string, st Step, toolID string) []byte {
	var b bytes.Buffer
	ev := func(name string, data any) {
		j, _ := json.Marshal(data)
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", name, j)
	}
	ev("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": msgID, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 100, "output_tokens": 1,
			"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}})
	ev("ping", map[string]any{"type": "ping"})
	if st.Tool != "" {
		in := st.Input
		if in == nil {
			in = map[string]any{}
		}
		args, _ := json.Marshal(in)
		ev("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": toolID, "name": st.Tool, "input": map[string]any{}}})
		ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": string(args)}})
	} else {
		ev("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": st.Text}})
	}
	ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	ev("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stopReason(st), "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 10}})
	ev("message_stop", map[string]any{"type": "message_stop"})
	return b.Bytes()
}

func apiError(typ, msg string) map[string]any {
	return map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("request-id", "req_mock")
	w.WriteHeader(code)
	w.Write(b) //nolint:errcheck // the client hung up
}

// Message is one entry of a request's messages[] (role user, assistant or system).
type Message struct {
	Role    string
	Content []Block
}

// Block is one content block of a message.
type Block struct {
	Type      string // text, tool_use, tool_result
	Text      string // text; for tool_result, its content flattened to text
	Name      string // tool_use
	ToolUseID string // tool_result
	IsError   bool   // tool_result
}

// Messages decodes the request's messages[]. A string content becomes one text
// block; a tool_result's content (string or blocks) is flattened to text.
func (r Request) Messages() []Message {
	var body struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(r.Body, &body) != nil {
		return nil
	}
	var out []Message
	for _, m := range body.Messages {
		out = append(out, Message{Role: m.Role, Content: blocks(m.Content)})
	}
	return out
}

func blocks(raw json.RawMessage) []Block {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []Block{{Type: "text", Text: s}}
	}
	var bs []struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		Name      string          `json:"name"`
		ToolUseID string          `json:"tool_use_id"`
		IsError   bool            `json:"is_error"`
		Content   json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &bs) != nil {
		return nil
	}
	var out []Block
	for _, b := range bs {
		blk := Block{Type: b.Type, Text: b.Text, Name: b.Name, ToolUseID: b.ToolUseID, IsError: b.IsError}
		if b.Type == "tool_result" && len(b.Content) > 0 {
			var parts []string
			for _, c := range blocks(b.Content) {
				parts = append(parts, c.Text)
			}
			blk.Text = strings.Join(parts, "\n")
		}
		out = append(out, blk)
	}
	return out
}

// AfterLastAssistant returns the messages after the last assistant turn: what
// is new to the model in this request (tool results, hook feedback, system
// context).
func (r Request) AfterLastAssistant() []Message {
	msgs := r.Messages()
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "assistant" {
			return msgs[i+1:]
		}
	}
	return msgs
}

// Texts flattens messages to their text, one string per block, prefixed with
// the role (and "tool_result[error]" for failed tool results), for assertions
// and readable failure output.
func Texts(msgs []Message) []string {
	var out []string
	for _, m := range msgs {
		for _, b := range m.Content {
			tag := m.Role
			switch b.Type {
			case "tool_result":
				tag += " tool_result"
				if b.IsError {
					tag += "[error]"
				}
			case "tool_use":
				tag += " tool_use " + b.Name
			}
			out = append(out, tag+": "+b.Text)
		}
	}
	return out
}
