// Package responses is a scripted stand-in for the OpenAI Responses API, for
// running the real Codex CLI offline in tests. It listens on 127.0.0.1 only,
// answers POST /v1/responses with the SSE stream Codex expects, and records
// every request body so a test can assert on what the model received next.
package responses

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// Step is one scripted model turn: exactly one of its fields is set.
type Step struct {
	// Command is a shell call, shaped after whichever shell tool the request
	// offers (exec_command, shell_command or shell).
	Command string `json:"command,omitempty"`
	// Patch is a freeform apply_patch call (a custom_tool_call). Codex offers
	// apply_patch only for catalog models, e.g. model = "gpt-5.5".
	Patch string `json:"patch,omitempty"`
	// Function calls any function tool with JSON arguments.
	Function *FunctionCall `json:"function,omitempty"`
	// Message is a final assistant message: it ends the model's turn.
	Message string `json:"message,omitempty"`
}

// FunctionCall is a function tool call.
type FunctionCall struct {
	Name      string         `json:"name"`
	Namespace string         `json:"namespace,omitempty"`
	Arguments map[string]any `json:"arguments,omitempty"`
}

// Request is one recorded POST body.
type Request struct {
	Path string
	Body map[string]any
	Raw  []byte
}

// Options configure a server.
type Options struct {
	// Steps are answered in order, one per model request.
	Steps []Step
	// Final is sent once the steps are used up (default "done").
	Final string
	// Respond, when set, decides every answer instead of Steps: n is the
	// 0-based request number.
	Respond func(n int, req Request) Step
}

// Server is a running mock.
type Server struct {
	// URL is the base URL to put in Codex's model provider (ends in /v1).
	URL string

	ln   net.Listener
	srv  *http.Server
	opts Options

	mu       sync.Mutex
	requests []Request
	served   int
}

// New starts a server on 127.0.0.1 with an OS-chosen port.
func New(opts Options) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("mock responses server: listen: %w", err)
	}
	s := &Server{ln: ln, opts: opts, URL: "http://" + ln.Addr().String() + "/v1"}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.handle)}
	go s.srv.Serve(ln) //nolint:errcheck // returns on Close
	return s, nil
}

// Start starts a server for a test and closes it when the test ends.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Requests returns a copy of every model request received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if r.Method == http.MethodGet && strings.HasSuffix(strings.TrimRight(r.URL.Path, "/"), "/models") {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[],"models":[]}`)
		return
	}
	if r.Method != http.MethodPost || !strings.HasSuffix(strings.TrimRight(r.URL.Path, "/"), "/responses") {
		http.NotFound(w, r)
		return
	}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		http.Error(w, "body is not a JSON object", http.StatusBadRequest)
		return
	}
	req := Request{Path: r.URL.Path, Body: body, Raw: raw}
	s.mu.Lock()
	n := s.served
	s.served++
	s.requests = append(s.requests, req)
	s.mu.Unlock()

	var step Step
	switch {
	case s.opts.Respond != nil:
		step = s.opts.Respond(n, req)
	case n < len(s.opts.Steps):
		step = s.opts.Steps[n]
	default:
		step = Step{Message: s.opts.Final}
		if step.Message == "" {
			step.Message = "done"
		}
	}
	item := itemFor(step, body["tools"], n+1)
	respID := fmt.Sprintf("resp_mock_%d", n+1)
	events := []map[string]any{
		{"type": "response.created", "response": map[string]any{"id": respID, "status": "in_progress"}},
		{"type": "response.output_item.added", "output_index": 0, "item": item},
		{"type": "response.output_item.done", "output_index": 0, "item": item},
		{"type": "response.completed", "response": map[string]any{
			"id": respID, "status": "completed", "output": []any{item},
			"usage": map[string]any{
				"input_tokens": 10, "input_tokens_details": map[string]any{"cached_tokens": 0},
				"output_tokens": 5, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
				"total_tokens": 15,
			},
		}},
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	for _, ev := range events {
		b, _ := json.Marshal(ev)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev["type"], b)
		if fl != nil {
			fl.Flush()
		}
	}
}

func itemFor(step Step, tools any, n int) map[string]any {
	callID := fmt.Sprintf("call_mock_%d", n)
	switch {
	case step.Patch != "":
		return map[string]any{"type": "custom_tool_call", "id": fmt.Sprintf("ctc_mock_%d", n),
			"call_id": callID, "name": "apply_patch", "input": step.Patch, "status": "completed"}
	case step.Function != nil:
		args, _ := json.Marshal(step.Function.Arguments)
		if step.Function.Arguments == nil {
			args = []byte("{}")
		}
		it := map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_mock_%d", n),
			"call_id": callID, "name": step.Function.Name, "arguments": string(args), "status": "completed"}
		if step.Function.Namespace != "" {
			it["namespace"] = step.Function.Namespace
		}
		return it
	case step.Command != "":
		name, args := shellCall(tools, step.Command)
		b, _ := json.Marshal(args)
		return map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_mock_%d", n),
			"call_id": callID, "name": name, "arguments": string(b), "status": "completed"}
	}
	return map[string]any{"type": "message", "id": fmt.Sprintf("msg_mock_%d", n), "role": "assistant",
		"status":  "completed",
		"content": []any{map[string]any{"type": "output_text", "text": step.Message, "annotations": []any{}}}}
}

// shellCall shapes a shell command after the shell tool Codex offered.
func shellCall(tools any, command string) (string, map[string]any) {
	names := map[string]bool{}
	list, _ := tools.([]any)
	for _, t := range list {
		m, _ := t.(map[string]any)
		if name, ok := m["name"].(string); ok {
			names[name] = true
		}
		if fn, ok := m["function"].(map[string]any); ok {
			if name, ok := fn["name"].(string); ok {
				names[name] = true
			}
		}
	}
	switch {
	case names["exec_command"]:
		return "exec_command", map[string]any{"cmd": command}
	case names["shell_command"]:
		return "shell_command", map[string]any{"command": command}
	}
	return "shell", map[string]any{"command": []string{"bash", "-lc", command}}
}

// Input returns the request's input items.
func (r Request) Input() []map[string]any {
	list, _ := r.Body["input"].([]any)
	out := make([]map[string]any, 0, len(list))
	for _, it := range list {
		if m, ok := it.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// Offers reports whether the request offers a tool of this name.
func (r Request) Offers(name string) bool {
	list, _ := r.Body["tools"].([]any)
	for _, t := range list {
		if m, ok := t.(map[string]any); ok && m["name"] == name {
			return true
		}
	}
	return false
}

// Message is one input item in a readable form.
type Message struct {
	Type string // message, function_call, function_call_output, custom_tool_call_output, ...
	Role string // for messages
	Text string // message text, tool output, or call arguments/input
}

func (m Message) String() string {
	if m.Role != "" {
		return m.Type + "(" + m.Role + "): " + m.Text
	}
	return m.Type + ": " + m.Text
}

// Messages returns the request's input items in readable form.
func (r Request) Messages() []Message {
	var out []Message
	for _, it := range r.Input() {
		m := Message{}
		m.Type, _ = it["type"].(string)
		m.Role, _ = it["role"].(string)
		switch m.Type {
		case "message":
			m.Text = TextOf(it)
		case "function_call_output", "custom_tool_call_output":
			switch o := it["output"].(type) {
			case string:
				m.Text = o
			default:
				b, _ := json.Marshal(o)
				m.Text = string(b)
			}
		case "function_call":
			name, _ := it["name"].(string)
			args, _ := it["arguments"].(string)
			m.Text = name + " " + args
		case "custom_tool_call":
			name, _ := it["name"].(string)
			in, _ := it["input"].(string)
			m.Text = name + " " + in
		}
		out = append(out, m)
	}
	return out
}

// NewMessages returns the items of request i that were not in request i-1:
// Codex resends the whole conversation each time, so this is what the model
// "received next".
func NewMessages(reqs []Request, i int) []Message {
	cur := reqs[i].Messages()
	if i == 0 {
		return cur
	}
	prev := len(reqs[i-1].Input())
	if prev > len(cur) {
		return cur
	}
	return cur[prev:]
}

// TextOf concatenates the text parts of a message item.
func TextOf(item map[string]any) string {
	switch c := item["content"].(type) {
	case string:
		return c
	case []any:
		var parts []string
		for _, p := range c {
			if m, ok := p.(map[string]any); ok {
				if t, ok := m["text"].(string); ok {
					parts = append(parts, t)
				}
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}
