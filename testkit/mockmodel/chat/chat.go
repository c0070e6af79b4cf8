// Package chat is a scripted OpenAI chat-completions server for end-to-end tests
// that run a real harness (opencode, pi, ...) offline. It listens on 127.0.0.1
// only, answers POST /v1/chat/completions (streaming SSE or plain JSON) and
// GET /v1/models, and records every request body so a test can assert on what the
// model received (a blocked tool's reason, a follow-up message, ...).
//
// Usage:
//
//	srv, err := chat.Start(chat.Options{Steps: []chat.Step{
//		chat.ToolCall("bash", map[string]any{"command": "go test ./..."}),
//		chat.Func(func(r *chat.Request) chat.Reply {
//			if strings.Contains(r.LastToolResult(), "PASS") {
//				return chat.Reply{Text: "all green"}
//			}
//			return chat.Reply{Text: "still failing"}
//		}),
//		chat.Text("done"),
//	}})
//	defer srv.Close()
//	// point the harness at srv.BaseURL() ("http://127.0.0.1:PORT/v1")
//	for _, r := range srv.Requests() { ... r.Messages ... }
//
// Scripting rules:
//   - A request that offers no tools (a harness's title or summary agent) gets
//     Options.TitleText and consumes no step.
//   - Every other request consumes the next step, in order. When the steps run
//     out it gets Options.DefaultText ("done" if empty).
//   - Options.Respond, when set, replaces the step queue entirely.
//
// The API (Start, Options, Step, Reply, Call, Request, Message and the helpers
// below) is stable: other harnesses' suites depend on it.
package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Call is one tool call the model makes.
type Call struct {
	Name string
	// Arguments is the JSON object text of the call's arguments.
	Arguments string
	// ID is the call id; empty means the server assigns "call_mock_<seq>_<i>".
	ID string
}

// Reply is one model answer: optional text, then optional tool calls. With tool
// calls the finish reason is "tool_calls", otherwise "stop".
type Reply struct {
	Text      string
	ToolCalls []Call
}

// Step produces the reply to one request that consumes a step.
type Step func(*Request) Reply

// Text is a step that answers with final assistant text.
func Text(s string) Step { return func(*Request) Reply { return Reply{Text: s} } }

// ToolCall is a step that calls one tool; args is marshalled to JSON (a string or
// json.RawMessage is used verbatim).
func ToolCall(name string, args any) Step {
	c := NewCall(name, args)
	return func(*Request) Reply { return Reply{ToolCalls: []Call{c}} }
}

// ToolCalls is a step that calls several tools in one model turn.
func ToolCalls(calls ...Call) Step {
	return func(*Request) Reply { return Reply{ToolCalls: append([]Call(nil), calls...)} }
}

// Func is a step whose reply depends on the request (e.g. on the last tool result).
func Func(f func(*Request) Reply) Step { return f }

// NewCall builds a Call; args is marshalled to JSON (a string or json.RawMessage is
// used verbatim). It panics on an argument that cannot be marshalled: that is a
// bug in the test.
func NewCall(name string, args any) Call {
	var s string
	switch a := args.(type) {
	case string:
		s = a
	case json.RawMessage:
		s = string(a)
	case nil:
		s = "{}"
	default:
		b, err := json.Marshal(a)
		if err != nil {
			panic(fmt.Sprintf("chat.NewCall(%q): %v", name, err))
		}
		s = string(b)
	}
	return Call{Name: name, Arguments: s}
}

// Options configure a Server.
type Options struct {
	// Steps answer the requests that offer tools, one step per request, in order.
	Steps []Step
	// Respond, when set, answers every request that offers tools (Steps are then
	// ignored).
	Respond func(*Request) Reply
	// TitleText answers requests without tools ("Mock title" if empty).
	TitleText string
	// DefaultText answers once the steps ran out ("done" if empty).
	DefaultText string
	// Addr is the listen address; default "127.0.0.1:0". Only loopback is allowed.
	Addr string
}

// Message is one chat message of a request, with its content flattened to text.
type Message struct {
	Role       string
	Content    string // text parts joined with "\n"
	ToolCallID string // role "tool"
	ToolCalls  []Call // role "assistant"
	Raw        json.RawMessage
}

// Request is one recorded POST.
type Request struct {
	Seq      int // 1-based, in arrival order
	Time     time.Time
	Path     string
	Model    string
	Stream   bool
	Tools    []string // names of the offered tools
	Messages []Message
	Body     json.RawMessage // verbatim
	// Reply is what the server answered (zero for a 404).
	Reply Reply
	// Step is the index of the consumed step, -1 when none was consumed.
	Step int
}

// LastMessage is the request's last message (zero Message when there is none).
func (r *Request) LastMessage() Message {
	if len(r.Messages) == 0 {
		return Message{}
	}
	return r.Messages[len(r.Messages)-1]
}

// LastToolResult is the content of the last message when it is a tool result,
// else "".
func (r *Request) LastToolResult() string {
	if m := r.LastMessage(); m.Role == "tool" {
		return m.Content
	}
	return ""
}

// LastUserText is the content of the newest user message.
func (r *Request) LastUserText() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}

// ToolResults are the tool-result messages in order.
func (r *Request) ToolResults() []Message {
	var out []Message
	for _, m := range r.Messages {
		if m.Role == "tool" {
			out = append(out, m)
		}
	}
	return out
}

// UserTexts are the contents of every user message in order.
func (r *Request) UserTexts() []string {
	var out []string
	for _, m := range r.Messages {
		if m.Role == "user" {
			out = append(out, m.Content)
		}
	}
	return out
}

// HasTools reports whether the request offered tools (an agent step, not a title).
func (r *Request) HasTools() bool { return len(r.Tools) > 0 }

// Server is a running mock model.
type Server struct {
	opts Options
	ln   net.Listener
	srv  *http.Server

	mu       sync.Mutex
	requests []Request
	next     int // next step index
	changed  chan struct{}
}

// Start listens on 127.0.0.1 and serves until Close.
func Start(opts Options) (*Server, error) {
	addr := opts.Addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("mock model address %q: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("mock model address %q: only loopback is allowed", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("mock model listen %s: %w", addr, err)
	}
	s := &Server{opts: opts, ln: ln, changed: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("/", s.handle)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// BaseURL is the OpenAI-style base URL, e.g. "http://127.0.0.1:40123/v1".
func (s *Server) BaseURL() string { return "http://" + s.ln.Addr().String() + "/v1" }

// Addr is the listening host:port.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the server.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		return s.srv.Close()
	}
	return err
}

// Requests returns a copy of every recorded chat-completions request so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// AgentRequests are the recorded requests that offered tools.
func (s *Server) AgentRequests() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.HasTools() {
			out = append(out, r)
		}
	}
	return out
}

// StepsUsed is how many steps have been consumed.
func (s *Server) StepsUsed() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.next
}

// WaitFor blocks until cond holds for the recorded requests or the timeout
// passes; it reports whether cond held.
func (s *Server) WaitFor(timeout time.Duration, cond func([]Request) bool) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		ch := s.changed
		ok := cond(append([]Request(nil), s.requests...))
		s.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-ch:
		case <-deadline.C:
			return false
		}
	}
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(strings.TrimRight(r.URL.Path, "/"), "/models"):
		writeJSON(w, 200, map[string]any{"object": "list", "data": []any{map[string]any{"id": "mock-model", "object": "model"}}})
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions"):
		s.complete(w, r)
	default:
		writeJSON(w, 404, map[string]any{"error": map[string]any{"message": "not found: " + r.Method + " " + r.URL.Path}})
	}
}

type wireMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

type wireRequest struct {
	Model    string            `json:"model"`
	Stream   bool              `json:"stream"`
	Messages []json.RawMessage `json:"messages"`
	Tools    []struct {
		Name     string `json:"name"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

// parseRequest turns a body into a Request; a body that is not JSON is still
// recorded (with no messages) so a test can see what arrived.
func parseRequest(body []byte) Request {
	req := Request{Body: json.RawMessage(append([]byte(nil), body...)), Step: -1}
	var w wireRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return req
	}
	req.Model, req.Stream = w.Model, w.Stream
	for _, t := range w.Tools {
		n := t.Function.Name
		if n == "" {
			n = t.Name
		}
		req.Tools = append(req.Tools, n)
	}
	for _, raw := range w.Messages {
		var m wireMessage
		_ = json.Unmarshal(raw, &m)
		msg := Message{Role: m.Role, Content: contentText(m.Content), ToolCallID: m.ToolCallID, Raw: raw}
		for _, c := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, Call{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
		}
		req.Messages = append(req.Messages, msg)
	}
	return req
}

// contentText flattens a message content: a string, or a list of parts of which
// the text parts count.
func contentText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var texts []string
		for _, p := range parts {
			if p.Text != "" {
				texts = append(texts, p.Text)
			}
		}
		return strings.Join(texts, "\n")
	}
	return string(raw)
}

func (s *Server) complete(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeJSON(w, 400, map[string]any{"error": map[string]any{"message": "read body: " + err.Error()}})
		return
	}
	req := parseRequest(body)
	req.Path, req.Time = r.URL.Path, time.Now()

	// The step is chosen and the request recorded under one lock so that
	// concurrent requests consume steps in arrival order.
	s.mu.Lock()
	req.Seq = len(s.requests) + 1
	var step Step
	switch {
	case !req.HasTools():
		t := s.opts.TitleText
		if t == "" {
			t = "Mock title"
		}
		step = Text(t)
	case s.opts.Respond != nil:
		step = s.opts.Respond
	case s.next < len(s.opts.Steps):
		step = s.opts.Steps[s.next]
		req.Step = s.next
		s.next++
	default:
		t := s.opts.DefaultText
		if t == "" {
			t = "done"
		}
		step = Text(t)
	}
	s.mu.Unlock()

	reply := step(&req)
	for i := range reply.ToolCalls {
		if reply.ToolCalls[i].ID == "" {
			reply.ToolCalls[i].ID = fmt.Sprintf("call_mock_%d_%d", req.Seq, i)
		}
		if reply.ToolCalls[i].Arguments == "" {
			reply.ToolCalls[i].Arguments = "{}"
		}
	}
	req.Reply = reply

	s.mu.Lock()
	s.requests = append(s.requests, req)
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()

	model := req.Model
	if model == "" {
		model = "mock-model"
	}
	id := fmt.Sprintf("chatcmpl-mock-%d", req.Seq)
	usage := map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
	finish := "stop"
	if len(reply.ToolCalls) > 0 {
		finish = "tool_calls"
	}
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": nil}
		if reply.Text != "" {
			msg["content"] = reply.Text
		}
		if len(reply.ToolCalls) > 0 {
			var calls []any
			for _, c := range reply.ToolCalls {
				calls = append(calls, map[string]any{"id": c.ID, "type": "function",
					"function": map[string]any{"name": c.Name, "arguments": c.Arguments}})
			}
			msg["tool_calls"] = calls
		}
		writeJSON(w, 200, map[string]any{"id": id, "object": "chat.completion", "created": time.Now().Unix(),
			"model": model, "choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
			"usage": usage})
		return
	}

	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Connection", "close")
	w.WriteHeader(200)
	flusher, _ := w.(http.Flusher)
	chunk := func(delta map[string]any, finishReason any) map[string]any {
		return map[string]any{"id": id, "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finishReason}}}
	}
	events := []map[string]any{chunk(map[string]any{"role": "assistant", "content": ""}, nil)}
	if reply.Text != "" {
		events = append(events, chunk(map[string]any{"content": reply.Text}, nil))
	}
	for i, c := range reply.ToolCalls {
		events = append(events,
			chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": c.ID, "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": ""}}}}, nil),
			chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i,
				"function": map[string]any{"arguments": c.Arguments}}}}, nil))
	}
	events = append(events, chunk(map[string]any{}, finish))
	events = append(events, map[string]any{"id": id, "object": "chat.completion.chunk", "created": time.Now().Unix(),
		"model": model, "choices": []any{}, "usage": usage})
	for _, e := range events {
		b, _ := json.Marshal(e)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	io.WriteString(w, "data: [DONE]\n\n")
	if flusher != nil {
		flusher.Flush()
	}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", fmt.Sprint(len(b)))
	w.WriteHeader(code)
	_, _ = w.Write(b)
}
